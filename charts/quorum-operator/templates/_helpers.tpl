{{/* Labels every object carries (the same as deploy/). */}}
{{- define "quorum.labels" -}}
app.kubernetes.io/name: quorum-operator
app.kubernetes.io/part-of: quorum
{{- end }}

{{/* The operator's ServiceAccount as an RBAC subject. */}}
{{- define "quorum.subject" -}}
- kind: ServiceAccount
  name: quorum-operator
  namespace: {{ .Release.Namespace }}
{{- end }}

{{/*
Binds ClusterRole `name`: cluster-wide, or in each watched namespace.
Call with (dict "root" $ "name" "quorum-operator-etcdcluster").
*/}}
{{- define "quorum.controllerBinding" -}}
{{- $root := .root -}}
{{- $name := .name -}}
{{- if $root.Values.watchNamespaces }}
{{- range $ns := $root.Values.watchNamespaces }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: {{ $name }}
  namespace: {{ $ns }}
  labels:
    {{- include "quorum.labels" $root | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: {{ $name }}
subjects:
  {{- include "quorum.subject" $root | nindent 2 }}
{{- end }}
{{- else }}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: {{ $name }}
  labels:
    {{- include "quorum.labels" $root | nindent 4 }}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: {{ $name }}
subjects:
  {{- include "quorum.subject" $root | nindent 2 }}
{{- end }}
{{- end }}

{{/* namespaceSelector limiting the webhooks to the watched namespaces. */}}
{{- define "quorum.webhookNamespaceSelector" -}}
{{- if .Values.watchNamespaces }}
namespaceSelector:
  matchExpressions:
  - key: kubernetes.io/metadata.name
    operator: In
    values:
    {{- range .Values.watchNamespaces }}
    - {{ . }}
    {{- end }}
{{- end }}
{{- end }}
