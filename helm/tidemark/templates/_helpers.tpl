{{/*
The prefix of every name: the release name, or fullnameOverride.
*/}}
{{- define "tidemark.fullname" -}}
{{- default .Release.Name .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{/*
The name of one service's Deployment and Service: "<release>-<name>".
Call with (dict "root" $ "name" "billing").
*/}}
{{- define "tidemark.componentName" -}}
{{- printf "%s-%s" (include "tidemark.fullname" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The env-var stem of a service name: "browser-pool" -> "BROWSER_POOL".
*/}}
{{- define "tidemark.envName" -}}
{{- . | upper | replace "-" "_" -}}
{{- end -}}

{{- define "tidemark.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Labels on every object. Call with the root context.
*/}}
{{- define "tidemark.labels" -}}
helm.sh/chart: {{ include "tidemark.chart" . }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: tidemark
{{- end -}}

{{/*
Selector labels of one service. Call with (dict "root" $ "name" "billing").
*/}}
{{- define "tidemark.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/*
The image every service runs.
*/}}
{{- define "tidemark.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag | toString) -}}
{{- end -}}

{{/*
DATABASE_URL from the existing Secret; an env list item.
*/}}
{{- define "tidemark.databaseEnv" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ required "database.existingSecret: name a Secret holding the PostgreSQL URL" .Values.database.existingSecret }}
      key: {{ default "url" .Values.database.secretKey }}
- name: SECRETS_KEY
  valueFrom:
    secretKeyRef:
      name: {{ required "keys.existingSecret: name a Secret holding the 32-byte key for secrets at rest" .Values.keys.existingSecret }}
      key: {{ default "secret-key" .Values.keys.secretKey }}
{{- end -}}
