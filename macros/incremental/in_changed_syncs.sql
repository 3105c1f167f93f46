{#- A predicate that keeps what this build of a sync-scoped model rewrites (`changed_runs`):
    every sync in a full build (`1 = 1`), none in an idle one (`1 = 0`), else the syncs
    rewritten whole (`sync_id in (...)`) and, for a run-scoped model, the new runs of the other
    syncs (`(sync_id = 202 and sync_run_id in (...))`), on the columns `sync_id` and
    `sync_run_id`. A comment after it carries `changed_runs` to the model's pre-hook
    (`clear_changed_syncs`), which so does not ask again.
    Keyword arguments: `changed`, a result of `changed_runs` the model already holds (else it is
    asked here); `whole_syncs=true` keeps the whole syncs of those new runs instead, for a
    run-scoped model that reads the earlier runs of a sync to write its new ones. -#}
{% macro in_changed_syncs() %}
    {#- the model depends on the fingerprints that `changed_runs` reads -#}
    {%- do ref('int_sync_logs__run_fingerprints') -%}
    {%- set changed = kwargs['changed'] if 'changed' in kwargs else sync_logs.changed_runs() -%}
    {%- set carried = ' /* ' ~ sync_logs.changed_runs_marker() ~ tojson(changed) ~ ' */' -%}
    {%- if changed is none -%}
        {{ return('1 = 1' ~ carried) }}
    {%- endif -%}
    {%- set whole_syncs = kwargs.get('whole_syncs', false) -%}
    {%- set syncs = changed.syncs[:] -%}
    {%- if whole_syncs -%}
        {%- do syncs.extend(changed.appended_runs | map('int')) -%}
    {%- endif -%}
    {%- set parts = [] -%}
    {%- if syncs -%}
        {%- do parts.append('sync_id in (' ~ syncs | unique | sort | join(', ') ~ ')') -%}
    {%- endif -%}
    {%- for sync_id, run_ids in changed.appended_runs | dictsort if not whole_syncs -%}
        {%- do parts.append('(sync_id = ' ~ sync_id ~ ' and sync_run_id in (' ~ run_ids | join(', ') ~ '))') -%}
    {%- endfor -%}
    {%- if not parts -%}
        {{ return('1 = 0' ~ carried) }}
    {%- endif -%}
    {{ return((parts[0] if parts | length == 1 else '(' ~ parts | join(' or ') ~ ')') ~ carried) }}
{% endmacro %}
