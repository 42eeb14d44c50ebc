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
# Never two primaries: before labelling its own pod primary it takes the label
# away from every other pod of the cluster that carries it (an old primary
# that was killed or cut off the network ran no on_stop; Patroni calls
# on_role_change/on_start with a primary role only once this member holds the
# DCS leader key). If that fails it does not label itself (it retries); only
# when it may not list pods (403) does it go on, leaving the rest to the
# operator, which also follows the leader key.
#
# Needs only sh, curl, grep and sed. Environment:
#   POD_NAME, POD_NAMESPACE        the Pod to patch (required)
#   KUBERNETES_SERVICE_HOST/PORT   the API server (in-cluster)
#   QUORUM_KUBE_API                overrides the API base URL (tests)
#   QUORUM_KUBE_TOKEN_FILE         default /var/run/secrets/kubernetes.io/serviceaccount/token
#   QUORUM_KUBE_CA_FILE            default /var/run/secrets/kubernetes.io/serviceaccount/ca.crt
#   QUORUM_CALLBACK_ATTEMPTS       default 5 (one second apart, 2 s per request)
#   QUORUM_CLUSTER_LABEL           the label naming the cluster (value: SCOPE),
#                                  default postgres.quorum.dev/cluster
# Exits 0 once the API server accepted the patch, 1 otherwise. Patroni runs
# callbacks asynchronously and kills a running one when the next starts, so
# the bounded retries never hold Patroni up.
set -u

action="${1:-}"
role="${2:-}"
scope="${3:-}"

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
pods="$api/api/v1/namespaces/$POD_NAMESPACE/pods"
cluster_label="${QUORUM_CLUSTER_LABEL:-postgres.quorum.dev/cluster}"

# One API request: api_request METHOD URL [curl options...]. Prints the body, a space
# and the HTTP status code. The token goes to curl through its config on
# stdin, never on a command line.
api_request() {
  method="$1"
  target="$2"
  shift 2
  token=""
  [ -r "$token_file" ] && token="$(cat "$token_file")"
  set -- --silent --show-error --write-out ' %{http_code}' --connect-timeout 1 --max-time 2 \
    --config - "$@"
  if [ "$method" = GET ]; then set -- --get "$@"; else set -- --request "$method" "$@"; fi
  [ -r "$ca_file" ] && set -- "$@" --cacert "$ca_file"
  if [ -n "$token" ]; then
    printf 'header = "Authorization: Bearer %s"\n' "$token" | curl "$@" "$target"
  else
    curl "$@" "$target" </dev/null
  fi
}

# Merge-patches pod $1 with body $2; prints the HTTP status code.
patch_pod() {
  r="$(api_request PATCH "$pods/$1" --header 'Content-Type: application/merge-patch+json' \
    --data-binary "$2" 2>/dev/null)"
  echo "${r##* }"
}

# Takes role=primary away from the cluster's other pods. Prints "ok",
# "forbidden" (no right to list pods) or the failing status code.
clear_other_primaries() {
  r="$(api_request GET "$pods" \
    --header 'Accept: application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json' \
    --data-urlencode "labelSelector=$cluster_label=$scope,role=primary" \
    --data-urlencode "fieldSelector=metadata.name!=$POD_NAME" --data-urlencode pretty=false \
    2>/dev/null)"
  code="${r##* }"
  case "$code" in
    2??) ;;
    403) echo forbidden; return ;;
    *) echo "${code:-none}"; return ;;
  esac
  # The API server pretty-prints for curl unless told not to; names hold no
  # blanks, so the blanks go before the names are picked out.
  for other in $(printf '%s' "${r% *}" | tr -d '[:space:]' | grep -o '"metadata":{"name":"[^"]*"' |
    sed -e 's/.*"name":"//' -e 's/"$//'); do
    code="$(patch_pod "$other" '{"metadata":{"labels":{"role":null}}}')"
    case "$code" in
      2?? | 404) echo "role-callback: took role=primary away from $other" >&2 ;;
      *) echo "${code:-none}"; return ;;
    esac
  done
  echo ok
}

attempts="${QUORUM_CALLBACK_ATTEMPTS:-5}"
i=1
while :; do
  code=""
  cleared=ok
  if [ "$label" = primary ] && [ -n "$scope" ]; then
    cleared="$(clear_other_primaries)"
    if [ "$cleared" = forbidden ]; then
      echo "role-callback: may not list pods; other pods' role=primary left to the operator" >&2
      cleared=ok
    fi
  fi
  if [ "$cleared" = ok ]; then
    code="$(patch_pod "$POD_NAME" "$body")"
    case "$code" in
      2??) exit 0 ;;
      400 | 401 | 403 | 404 | 422)
        echo "role-callback: $action $role: API server answered $code" >&2
        exit 1
        ;;
    esac
  else
    code="$cleared"
  fi
  if [ "$i" -ge "$attempts" ]; then
    echo "role-callback: $action $role: no answer after $attempts attempts (last: ${code:-none})" >&2
    exit 1
  fi
  i=$((i + 1))
  sleep 1
done
