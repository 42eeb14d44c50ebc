#include "api/postgres_objects_schema.h"

#include "api/postgres_objects.h"
#include "api/schema_nodes.h"

namespace quorum::api {

using namespace internal::schema;  // NOLINT(build/namespaces): schema literals read better

namespace {

Json Immutable(Json node, const char* message) {
  node["x-kubernetes-validations"] = Json::array({Rule("self == oldSelf", message)});
  return node;
}

Json SqlName(const char* d) {
  Json j = String(d);
  j["maxLength"] = kMaxSqlNameLength;
  j["minLength"] = 1;
  return j;
}

// maxItems bounds the cost of the CEL rules over the list.
Json StringList(const char* d, Json item, int max_items = 64) {
  Json j = Typed("array", d);
  j["items"] = std::move(item);
  j["maxItems"] = max_items;
  return j;
}

Json Cluster() {
  Json cluster =
      Immutable(String("The PostgresCluster, in this namespace, the object lives in. Immutable."),
                "cluster is immutable");
  cluster["minLength"] = 1;
  return cluster;
}

Json Reclaim(const char* what) {
  Json j = String(what);
  j["enum"] = Json::array({"retain", "delete"});
  j["default"] = "retain";
  return j;
}

Json ConnectionLimit(const char* d) {
  Json j = Int32(d);
  j["minimum"] = -1;
  j["default"] = -1;
  return j;
}

// spec.name may be set on create and never changed, nor added or removed.
Json NameRule() {
  return Rule(
      "has(self.name) == has(oldSelf.name) && (!has(self.name) || self.name == "
      "oldSelf.name)",
      "name is immutable", ".name");
}

Json Status(bool role) {
  Json conditions = Typed("array", "Ready, with the reason of the last change.");
  conditions["items"] = Ref(std::string(kMeta) + "Condition", "A condition.");
  conditions["x-kubernetes-list-type"] = "map";
  conditions["x-kubernetes-list-map-keys"] = Json::array({"type"});
  Json props = {
      {"observedGeneration", Int64("The generation this status describes.")},
      {"applied", Bool("Whether the spec of observedGeneration is in PostgreSQL.")},
      {"message", String("The last error (the statement and PostgreSQL's answer), or why it "
                         "waits; empty once applied.")},
      {"conditions", conditions},
  };
  if (role) {
    props["secretName"] = String(
        "The Secret with the role's credentials: the generated <cluster>-role-<name>, "
        "or spec.passwordSecret.name.");
    props["certificateSecret"] =
        String("With spec.clientCertificate: the Secret with the role's client certificate.");
    props["certificateNotAfter"] = String(
        "With spec.clientCertificate: when the certificate expires (it is renewed a "
        "third of its lifetime before).");
  } else {
    Json grant = Object(
        "A grant: on the database, or on a schema.",
        {{"role", String("The role.")},
         {"schema", String("The schema; absent: the database.")},
         {"privileges", StringList("Its privileges, ALL spelled out.", String("A privilege."))}});
    props["grants"] = Typed("array",
                            "The grants of spec.grants in PostgreSQL, as last applied: one "
                            "removed from spec.grants is revoked.");
    props["grants"]["items"] = grant;
  }
  return Object("Written by Quorum.", props);
}

Json Root(const char* d, const char* kind, Json spec, bool role) {
  return Object(d, {
                       {"apiVersion", String("postgres.quorum.dev/v1alpha1.")},
                       {"kind", String(kind)},
                       {"metadata", {{"type", "object"}}},
                       {"spec", std::move(spec)},
                       {"status", Status(role)},
                   });
}

Json Columns(const char* name_path) {
  return Json::array({
      {{"name", "Cluster"}, {"type", "string"}, {"jsonPath", ".spec.cluster"}},
      {{"name", "Name"}, {"type", "string"}, {"jsonPath", name_path}},
      {{"name", "Applied"}, {"type", "boolean"}, {"jsonPath", ".status.applied"}},
      {{"name", "Message"}, {"type", "string"}, {"jsonPath", ".status.message"}, {"priority", 1}},
      {{"name", "Age"}, {"type", "date"}, {"jsonPath", ".metadata.creationTimestamp"}},
  });
}

}  // namespace

Json PostgresRoleSchemaSource() {
  Json password = Object(
      "A Secret in this namespace holding the role's password. Unset on a login role: Quorum "
      "generates one into <cluster>-role-<name>.",
      {{"name", String("The Secret's name.")},
       {"key", String("The key holding the password (default password).")}});
  password["required"] = Json::array({"name"});
  Json login = Bool("Whether the role may log in (LOGIN). Default true.");
  login["default"] = true;
  Json spec = Object(
      "One PostgreSQL role of a PostgresCluster.",
      {
          {"cluster", Cluster()},
          {"name", SqlName("The role's name; default metadata.name. Immutable. Not postgres, "
                           "replicator, quorum_pooler, quorum_pooler_admin, nor pg_*.")},
          {"login", login},
          {"connectionLimit", ConnectionLimit("CONNECTION LIMIT; -1 (default): none.")},
          {"inRoles", StringList("Roles this role is a member of (GRANT <role> TO it); "
                                 "PostgreSQL's predefined pg_* roles are allowed, except those "
                                 "reaching the server's files or programs.",
                                 SqlName("A role name."))},
          {"passwordSecret", password},
          {"reclaimPolicy", Reclaim("What deleting this resource does to the role: retain "
                                    "(default) keeps it; delete drops it (REASSIGN OWNED to "
                                    "the superuser, DROP OWNED, DROP ROLE).")},
          {"validUntil", String("VALID UNTIL: when the password stops working (a timestamp, "
                                "e.g. 2027-01-31T00:00:00Z, or infinity). Unset: never.")},
          {"clientCertificate",
           Bool("A client certificate for the role (CommonName: its name) issued from the "
                "cluster's CA into Secret <cluster>-role-<name>-cert (ca.crt, tls.crt, tls.key), "
                "renewed before it expires, for a cert rule of the cluster's "
                "spec.authentication. Needs login and a CA Quorum holds (not "
                "spec.tls.customSecret).")},
          {"disablePassword", Bool("The role has no password (PASSWORD NULL) and no Secret is "
                                   "generated: it logs in by certificate only. Not with "
                                   "passwordSecret.")},
      });
  spec["required"] = Json::array({"cluster"});
  spec["x-kubernetes-validations"] = Json::array(
      {NameRule(),
       Rule("!(has(self.clientCertificate) && self.clientCertificate && has(self.login) && "
            "!self.login)",
            "a certificate is for logging in: clientCertificate needs login true",
            ".clientCertificate"),
       Rule("!(has(self.disablePassword) && self.disablePassword && has(self.passwordSecret))",
            "the role has no password with disablePassword: remove passwordSecret",
            ".disablePassword")});
  return Root("A PostgreSQL role of a PostgresCluster, managed by Quorum.", "Always PostgresRole.",
              std::move(spec), true);
}

Json PostgresRolePrinterColumns() { return Columns(".spec.name"); }

Json PostgresDatabaseSchemaSource() {
  Json extension = Object("An extension to create (CREATE EXTENSION IF NOT EXISTS).",
                          {{"name", String("One of the contrib extensions the images ship.")},
                           {"schema", SqlName("The schema to create it in; default the "
                                              "extension's own choice.")}});
  extension["required"] = Json::array({"name"});
  Json schema = Object("A schema to create (CREATE SCHEMA IF NOT EXISTS ... AUTHORIZATION).",
                       {{"name", SqlName("The schema's name.")},
                        {"owner", SqlName("Its owner; default the database's owner.")}});
  schema["required"] = Json::array({"name"});
  Json privilege = String(
      "CONNECT, CREATE, TEMPORARY or ALL on the database; USAGE, CREATE or "
      "ALL on a schema.");
  privilege["enum"] = Json::array({"CONNECT", "CREATE", "TEMPORARY", "ALL", "USAGE"});
  privilege["maxLength"] = 9;
  Json privileges = StringList("The privileges to grant.", privilege, 4);
  privileges["minItems"] = 1;
  Json grant = Object("A GRANT on the database, or on one of its schemas.",
                      {{"role", SqlName("The role granted to.")},
                       {"privileges", privileges},
                       {"schema", SqlName("With a schema: the grant is on it (USAGE, CREATE), "
                                          "not on the database.")}});
  grant["required"] = Json::array({"role", "privileges"});
  grant["x-kubernetes-validations"] = Json::array(
      {Rule("has(self.schema) ? self.privileges.all(p, p in ['USAGE', 'CREATE', 'ALL']) : "
            "self.privileges.all(p, p in ['CONNECT', 'CREATE', 'TEMPORARY', 'ALL'])",
            "privileges on a schema are USAGE, CREATE, ALL; on a database CONNECT, CREATE, "
            "TEMPORARY, ALL",
            ".privileges")});
  Json spec = Object(
      "One database of a PostgresCluster.",
      {
          {"cluster", Cluster()},
          {"name", SqlName("The database's name; default metadata.name. Immutable.")},
          {"owner", SqlName("The owning role (e.g. a PostgresRole's name); default the "
                            "superuser.")},
          {"extensions", StringList("Extensions to create in it.", extension)},
          {"schemas", StringList("Schemas to create in it.", schema)},
          {"connectionLimit", ConnectionLimit("CONNECTION LIMIT; -1 (default): none.")},
          {"grants", StringList("Privileges to grant. Grants are added, never revoked: remove "
                                "one from the list and REVOKE it by hand.",
                                grant)},
          {"reclaimPolicy", Reclaim("What deleting this resource does to the database: retain "
                                    "(default) keeps it; delete drops it (its sessions are "
                                    "terminated first).")},
      });
  spec["required"] = Json::array({"cluster"});
  spec["x-kubernetes-validations"] = Json::array({NameRule()});
  return Root("A PostgreSQL database of a PostgresCluster, managed by Quorum.",
              "Always PostgresDatabase.", std::move(spec), false);
}

Json PostgresDatabasePrinterColumns() { return Columns(".spec.name"); }

}  // namespace quorum::api
