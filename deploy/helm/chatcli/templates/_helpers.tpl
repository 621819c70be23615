{{/* Names and labels. */}}
{{- define "chatcli.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "chatcli.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "chatcli.selectorLabels" -}}
app.kubernetes.io/name: {{ include "chatcli.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: server
{{- end -}}

{{- define "chatcli.labels" -}}
{{ include "chatcli.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "chatcli.tokenSecretName" -}}
{{- default (printf "%s-token" (include "chatcli.fullname" .)) .Values.token.existingSecret -}}
{{- end -}}

{{- define "chatcli.watcher" -}}
{{- if and .Values.serviceAccount.create .Values.rbac.create -}}true{{- end -}}
{{- end -}}

{{- define "chatcli.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "chatcli.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The settings.json the chart writes: values.settings plus k8s.watch. Empty when there is nothing to write. */}}
{{- define "chatcli.settingsJson" -}}
{{- $s := deepCopy (default (dict) .Values.settings) -}}
{{- if .Values.k8s.watch -}}
{{- $_ := set $s "k8s" (dict "watch" .Values.k8s.watch) -}}
{{- end -}}
{{- if $s -}}{{ toPrettyJson $s }}{{- end -}}
{{- end -}}

{{/* The URL the exec probes GET /status on (inside the pod). */}}
{{- define "chatcli.probeCommand" -}}
{{- if .Values.tls.secretName -}}
["chatcli", "serve", "--probe", {{ printf "https://127.0.0.1:%v" .Values.port | quote }}, "--tls-cert", {{ printf "/etc/chatcli/tls/%s" (default "tls.crt" .Values.tls.probeCaKey) | quote }}]
{{- else -}}
["chatcli", "serve", "--probe", {{ printf "http://127.0.0.1:%v" .Values.port | quote }}]
{{- end -}}
{{- end -}}

{{/* Refuse combinations that would weaken the deployment (fail closed). */}}
{{- define "chatcli.validate" -}}
{{- if and (not .Values.tls.secretName) (not .Values.networkPolicy.enabled) -}}
{{- fail "plain HTTP in the pod (tls.secretName empty) needs networkPolicy.enabled: set tls.secretName to a kubernetes.io/tls Secret, or keep the NetworkPolicy" -}}
{{- end -}}
{{- if and .Values.k8s.watch (not (include "chatcli.watcher" .)) -}}
{{- fail "k8s.watch needs serviceAccount.create and rbac.create (the watcher's read-only identity)" -}}
{{- end -}}
{{- if not (has .Values.rbac.scope (list "cluster" "namespace")) -}}
{{- fail "rbac.scope must be cluster or namespace" -}}
{{- end -}}
{{- end -}}
