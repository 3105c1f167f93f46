{#- Pre-hook of int_sync_logs__run_manifest, the model that reads the lake: warns, once per
    build, when the lake comes from the deprecated var `raw_root` (its config reads
    `sync_logs_raw_root`, else `raw_root`). Silent when both are set: `raw_root` may then be
    the installing project's own var. Renders no SQL. -#}
{% macro warn_deprecated_raw_root() %}
    {%- if execute and var('sync_logs_raw_root') is none and var('raw_root', none) is not none -%}
        {%- do exceptions.warn(
            "sync_logs: var raw_root is deprecated: rename var raw_root to sync_logs_raw_root "
            ~ "(the lake is read from raw_root until then).") -%}
    {%- endif -%}
    {{ return('') }}
{% endmacro %}
