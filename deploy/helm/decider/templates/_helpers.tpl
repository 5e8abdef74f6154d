{{/*
The templates of this chart keep to a subset of Helm's template language: the subset that
tests/helm_render.py implements, so that the tests render and validate the chart where no
helm binary is installed. That is: .Values.*, .Release.Name/Namespace/Service,
.Chart.Name/Version/AppVersion, define/include, if / else if / else / end with {{- -}}
trimming, pipelines, and the functions and, contains, default, include, nindent, not,
printf, quote, toYaml, trimSuffix, trunc. No range, with, variables or other functions:
widen the renderer first if a template needs them.
*/}}

{{/* Names: <release>-decider, or the release name alone when it already says decider. */}}
{{- define "decider.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{ .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else if contains .Chart.Name .Release.Name -}}
{{ .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else -}}
{{ printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end -}}
{{- end -}}

{{/* The headless Service that clients balance over (dns:///<it>.<namespace>.svc.cluster.local). */}}
{{- define "decider.headlessName" -}}
{{ printf "%s-headless" (include "decider.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end -}}

{{- define "decider.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "decider.labels" -}}
{{ include "decider.selectorLabels" . }}
app.kubernetes.io/component: server
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* The CPU image, or the CUDA one when the pod gets GPUs. */}}
{{- define "decider.image" -}}
{{- if .Values.gpu.count -}}
{{ .Values.image.repository }}:{{ .Values.image.cudaTag | default (printf "%s-cuda" .Chart.AppVersion) }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end -}}

{{/* A name in the server certificate, for the TLS probes. */}}
{{- define "decider.serverName" -}}
{{ .Values.tls.serverName | default (printf "%s.%s.svc.cluster.local" (include "decider.headlessName" .) .Release.Namespace) }}
{{- end -}}

{{/*
What the probes run: the kubelet's own gRPC probe (grpc.health.v1) in plaintext; with TLS,
decider-healthcheck from the image, because the kubelet's probe speaks plaintext only.
*/}}
{{- define "decider.probe" -}}
{{- if .Values.tls.enabled -}}
exec:
  command: ["decider-healthcheck", "--server-name", {{ include "decider.serverName" . | quote }}]
{{- else -}}
grpc:
  port: {{ .Values.server.port }}
{{- end -}}
{{- end -}}
