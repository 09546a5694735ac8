{{/* Names, labels and the rendered hookgate.yaml, shared by the templates. */}}

{{- define "hookgate.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "hookgate.fullname" -}}
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

{{/* The admin Service's name: the fullname, cut so that "-admin" fits 63. */}}
{{- define "hookgate.adminName" -}}
{{- printf "%s-admin" (include "hookgate.fullname" . | trunc 57 | trimSuffix "-") -}}
{{- end -}}

{{- define "hookgate.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "hookgate.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "hookgate.selectorLabels" -}}
app.kubernetes.io/name: {{ include "hookgate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "hookgate.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "hookgate.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* drainDelaySeconds, or hookgate's default of 5 when it is null. */}}
{{- define "hookgate.drainDelaySeconds" -}}
{{- if kindIs "invalid" .Values.timeouts.drainDelaySeconds -}}5{{- else -}}{{ int .Values.timeouts.drainDelaySeconds }}{{- end -}}
{{- end -}}

{{/* Drain, then grace for what is in flight, then 5 s to exit. */}}
{{- define "hookgate.terminationGracePeriodSeconds" -}}
{{- add (include "hookgate.drainDelaySeconds" . | int) (int .Values.timeouts.shutdownGraceSeconds) 5 -}}
{{- end -}}

{{/*
The whole hookgate.yaml: .Values.config with the keys the chart owns set
over it (listeners, tokens, store, audit key, shutdown timeouts).
*/}}
{{- define "hookgate.config" -}}
{{- $cfg := deepCopy (default (dict) .Values.config) -}}
{{- $_ := set $cfg "listen" (printf "0.0.0.0:%d" (int .Values.ports.agent)) -}}
{{- $admin := default (dict) (get $cfg "admin") -}}
{{- $_ := set $admin "listen" (printf "0.0.0.0:%d" (int .Values.ports.admin)) -}}
{{- if .Values.secrets.adminToken.secretName -}}
{{- $_ := set $admin "token_env" "HOOKGATE_ADMIN_TOKEN" -}}
{{- end -}}
{{- if .Values.secrets.approverTokens -}}
{{- $tokens := list -}}
{{- range .Values.secrets.approverTokens -}}
{{- $tokens = append $tokens (dict "name" .name "token_env" (include "hookgate.approverEnv" .)) -}}
{{- end -}}
{{- $_ := set $admin "tokens" $tokens -}}
{{- end -}}
{{- if .Values.secrets.sessionKey.secretName -}}
{{- $_ := set $admin "session_key_env" "HOOKGATE_SESSION_KEY" -}}
{{- end -}}
{{- $_ := set $cfg "admin" $admin -}}
{{- if .Values.postgres.enabled -}}
{{- $_ := set $cfg "store" (dict "driver" "postgres" "dsn" "${HOOKGATE_PG_DSN}") -}}
{{- else -}}
{{- $_ := set $cfg "store" (dict "driver" "sqlite" "path" "/data/hookgate.db") -}}
{{- end -}}
{{- if .Values.secrets.auditKey.secretName -}}
{{- $audit := default (dict) (get $cfg "audit") -}}
{{- $_ := set $audit "key_env" "HOOKGATE_AUDIT_KEY" -}}
{{- $_ := set $cfg "audit" $audit -}}
{{- end -}}
{{- $timeouts := default (dict) (get $cfg "timeouts") -}}
{{- $_ := set $timeouts "shutdown_grace" (printf "%ds" (int .Values.timeouts.shutdownGraceSeconds)) -}}
{{- if not (kindIs "invalid" .Values.timeouts.drainDelaySeconds) -}}
{{- $_ := set $timeouts "drain_delay" (printf "%ds" (int .Values.timeouts.drainDelaySeconds)) -}}
{{- end -}}
{{- $_ := set $cfg "timeouts" $timeouts -}}
{{- $redis := include "hookgate.redisKeys" . | fromYaml -}}
{{- if $redis -}}
{{- range (default (list) (get $cfg "hooks")) -}}
{{- $handler := default (dict) (get . "handler") -}}
{{- $with := default (dict) (get $handler "with") -}}
{{- if and (eq (toString (get $handler "type")) "builtin") (eq (toString (get $handler "name")) "rate_limit") (kindIs "map" (get $with "redis")) -}}
{{- $_ := set $with "redis" (merge (get $with "redis") (deepCopy $redis)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- toYaml $cfg -}}
{{- end -}}

{{/*
The keys of a rate_limit hook's redis: block that the redis values set
(internal/redisconn's Params), as YAML; empty when they set none. Secrets
are named by variable, never written.
*/}}
{{- define "hookgate.redisKeys" -}}
{{- $r := .Values.redis -}}
{{- $keys := dict -}}
{{- if ($r.passwordSecret).name -}}
{{- $_ := set $keys "password_env" "HOOKGATE_REDIS_PASSWORD" -}}
{{- end -}}
{{- with $r.sentinel -}}
{{- if .masterName -}}
{{- $_ := set $keys "master_name" .masterName -}}
{{- $_ := set $keys "sentinel_addrs" .addrs -}}
{{- end -}}
{{- if (.passwordSecret).name -}}
{{- $_ := set $keys "sentinel_password_env" "HOOKGATE_REDIS_SENTINEL_PASSWORD" -}}
{{- end -}}
{{- end -}}
{{- if ($r.cluster).addrs -}}
{{- $_ := set $keys "cluster_addrs" $r.cluster.addrs -}}
{{- end -}}
{{- if $keys -}}
{{- toYaml $keys -}}
{{- end -}}
{{- end -}}

{{/* An approver token's variable: HOOKGATE_ADMIN_TOKEN_<NAME>. */}}
{{- define "hookgate.approverEnv" -}}
{{- printf "HOOKGATE_ADMIN_TOKEN_%s" (.name | upper | replace "-" "_" | replace "." "_") -}}
{{- end -}}

{{/* One env entry read from a Secret: (list NAME SECRET KEY). */}}
{{- define "hookgate.secretEnv" -}}
- name: {{ index . 0 }}
  valueFrom:
    secretKeyRef:
      name: {{ index . 1 | quote }}
      key: {{ index . 2 | quote }}
{{- end -}}

{{/* Refuses values that would run hookgate wrongly. */}}
{{- define "hookgate.checkValues" -}}
{{- if and (not .Values.postgres.enabled) (or (gt (int .Values.replicaCount) 1) .Values.autoscaling.enabled) -}}
{{- fail "more than one replica (replicaCount > 1 or autoscaling.enabled) needs postgres.enabled: the SQLite store is one pod's file, and an approval answered on one pod would not release a call held on another" -}}
{{- end -}}
{{- if and .Values.postgres.enabled (not .Values.postgres.dsnSecret.name) -}}
{{- fail "postgres.enabled needs postgres.dsnSecret.name and .key: the DSN carries a password" -}}
{{- end -}}
{{- if and .Values.persistence.enabled (not .Values.persistence.existingClaim) -}}
{{- fail "persistence.enabled needs persistence.existingClaim, a PersistentVolumeClaim for /data" -}}
{{- end -}}
{{- if and .Values.redis.addr .Values.redis.addrSecret.name -}}
{{- fail "set redis.addr or redis.addrSecret, not both" -}}
{{- end -}}
{{- $sentinel := default (dict) .Values.redis.sentinel -}}
{{- $cluster := default (dict) .Values.redis.cluster -}}
{{- $ways := 0 -}}
{{- if or .Values.redis.addr (.Values.redis.addrSecret).name -}}{{- $ways = add1 $ways -}}{{- end -}}
{{- if or $sentinel.masterName $sentinel.addrs -}}{{- $ways = add1 $ways -}}{{- end -}}
{{- if $cluster.addrs -}}{{- $ways = add1 $ways -}}{{- end -}}
{{- if gt (int $ways) 1 -}}
{{- fail "redis: set one of addr/addrSecret, sentinel and cluster" -}}
{{- end -}}
{{- if and (or $sentinel.masterName $sentinel.addrs) (not (and $sentinel.masterName $sentinel.addrs)) -}}
{{- fail "redis.sentinel needs both masterName and addrs" -}}
{{- end -}}
{{- if and ($sentinel.passwordSecret).name (not $sentinel.masterName) -}}
{{- fail "redis.sentinel.passwordSecret needs redis.sentinel.masterName and addrs" -}}
{{- end -}}
{{- if hasKey (default (dict) .Values.config) "listen" -}}
{{- fail "config.listen is set by the chart (ports.agent): remove it from config" -}}
{{- end -}}
{{- if hasKey (default (dict) .Values.config) "store" -}}
{{- fail "config.store is set by the chart (postgres, persistence): remove it from config" -}}
{{- end -}}
{{- end -}}
