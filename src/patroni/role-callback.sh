#!/bin/sh
# Patroni role callback: Patroni runs it as `role-callback.sh ACTION ROLE SCOPE`
# for on_start, on_role_change and on_stop. It merge-PATCHes the member's own
# Pod: label role=primary|replica (removed when the member stops or has a role
# that must not receive traffic) and annotation status={"role":"..."}.
#
# Role table (the same as src/patroni/role.h):
#   primary, standby_leader, master -> primary
#   replica, sync_standby, quorum_standby, standby -> replica
#   anything else, and every on_stop -> no label
#
# Needs only sh and curl. Environment:
#   POD_NAME, POD_NAMESPACE        the Pod to patch (required)
#   KUBERNETES_SERVICE_HOST/PORT   the API server (in-cluster)
#   QUORUM_KUBE_API                overrides the API base URL (tests)
#   QUORUM_KUBE_TOKEN_FILE         default /var/run/secrets/kubernetes.io/serviceaccount/token
#   QUORUM_KUBE_CA_FILE            default /var/run/secrets/kubernetes.io/serviceaccount/ca.crt
#   QUORUM_CALLBACK_ATTEMPTS       default 5 (one second apart, 2 s per attempt)
# Exits 0 once the API server accepted the patch, 1 otherwise. Patroni runs
# callbacks asynchronously and kills a running one when the next starts, so
# the bounded retries never hold Patroni up.
set -u

action="${1:-}"
role="${2:-}"

label=""
case "$action" in
  on_stop) ;;
  *)
    case "$role" in
      primary | standby_leader | master) label=primary ;;
      replica | sync_standby | quorum_standby | standby) label=replica ;;
    esac
    ;;
esac

# The annotation holds Patroni's role word; anything that is not a plain word
# is reported as "unknown" so that it cannot break the JSON.
status_role="$role"
[ "$action" = on_stop ] && status_role=stopped
case "$status_role" in
  "" | *[!a-z_]*) status_role=unknown ;;
esac

if [ -n "$label" ]; then
  label_json="\"$label\""
else
  label_json=null
fi
body="{\"metadata\":{\"labels\":{\"role\":$label_json},\"annotations\":{\"status\":\"{\\\"role\\\":\\\"$status_role\\\"}\"}}}"

sa=/var/run/secrets/kubernetes.io/serviceaccount
token_file="${QUORUM_KUBE_TOKEN_FILE:-$sa/token}"
ca_file="${QUORUM_KUBE_CA_FILE:-$sa/ca.crt}"
api="${QUORUM_KUBE_API:-}"
if [ -z "$api" ]; then
  host="${KUBERNETES_SERVICE_HOST:-}"
  case "$host" in *:*) host="[$host]" ;; esac
  api="https://$host:${KUBERNETES_SERVICE_PORT:-443}"
fi
if [ -z "${POD_NAME:-}" ] || [ -z "${POD_NAMESPACE:-}" ]; then
  echo "role-callback: POD_NAME and POD_NAMESPACE must be set" >&2
  exit 1
fi
url="$api/api/v1/namespaces/$POD_NAMESPACE/pods/$POD_NAME"

# The token goes to curl through its config on stdin, never on a command line.
patch_once() {
  token=""
  [ -r "$token_file" ] && token="$(cat "$token_file")"
  set -- --silent --show-error --output /dev/null --write-out '%{http_code}' \
    --connect-timeout 1 --max-time 2 --request PATCH \
    --header 'Content-Type: application/merge-patch+json' --data-binary "$body" --config -
  [ -r "$ca_file" ] && set -- "$@" --cacert "$ca_file"
  if [ -n "$token" ]; then
    printf 'header = "Authorization: Bearer %s"\n' "$token" | curl "$@" "$url"
  else
    curl "$@" "$url" </dev/null
  fi
}

attempts="${QUORUM_CALLBACK_ATTEMPTS:-5}"
i=1
while :; do
  code="$(patch_once 2>/dev/null)"
  case "$code" in
    2??) exit 0 ;;
    400 | 401 | 403 | 404 | 422)
      echo "role-callback: $action $role: API server answered $code" >&2
      exit 1
      ;;
  esac
  if [ "$i" -ge "$attempts" ]; then
    echo "role-callback: $action $role: no answer after $attempts attempts (last: ${code:-none})" >&2
    exit 1
  fi
  i=$((i + 1))
  sleep 1
done
