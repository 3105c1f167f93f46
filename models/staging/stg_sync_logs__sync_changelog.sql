{#- One row per record attempt, with the canonical `sync_changelog` columns in every mode.
    Vendor modes derive what the vendor lacks with the rules of the canonical contract. -#}
{%- set mode = sync_logs.source_mode() -%}
{%- set string = dbt.type_string() -%}
{%- set bigint = dbt.type_bigint() -%}
{%- set timestamp = dbt.type_timestamp() -%}
{%- set boolean = dbt.type_boolean() -%}
{#- The payload rules (vars sync_logs_payload_*) apply where a payload is first read: here for
    the SQL sources; in mode `package` the Python models applied them (protect_payload then
    returns the column unchanged). payload_truncated recognises the truncation marker. -#}

{% if mode in ['package', 'tables'] %}

with changelog as (

select
    cast(log_id as {{ string }}) as log_id,
    cast(org_id as {{ bigint }}) as org_id,
    cast(sync_id as {{ bigint }}) as sync_id,
    cast(sync_run_id as {{ bigint }}) as sync_run_id,
    cast(op_type as {{ string }}) as op_type,
    cast(row_id as {{ string }}) as row_id,
    cast(status as {{ string }}) as status,
    cast(failed_reason as {{ string }}) as failed_reason,
    {{ sync_logs.protect_payload('cast(fields as ' ~ string ~ ')') }} as fields,
    cast(split_group as {{ string }}) as split_group,
    cast(operation as {{ string }}) as operation,
    cast(raw_status as {{ string }}) as raw_status,
    cast(payload_changed as {{ boolean }}) as payload_changed,
    cast(batch_started_at as {{ timestamp }}) as batch_started_at,
    cast(batch_ended_at as {{ timestamp }}) as batch_ended_at,
    cast(batch_file as {{ string }}) as batch_file,
    cast(logged_at as {{ timestamp }}) as logged_at
from {{ sync_logs.canonical_relation('sync_changelog') }}

)

select
    log_id,
    org_id,
    sync_id,
    sync_run_id,
    op_type,
    row_id,
    status,
    failed_reason,
    fields,
    split_group,
    operation,
    raw_status,
    payload_changed,
    batch_started_at,
    batch_ended_at,
    batch_file,
    logged_at,
    {{ sync_logs.payload_truncated('fields') }} as payload_truncated
from changelog

{% elif mode == 'hightouch' %}

with runs as (
    select
        cast(sync_id as {{ bigint }}) as sync_id,
        cast(sync_run_id as {{ bigint }}) as sync_run_id,
        cast(started_at as {{ timestamp }}) as started_at,
        cast(finished_at as {{ timestamp }}) as finished_at
    from {{ source('sync_logs_hightouch', 'sync_runs') }}
),

changelog as (
    select
        cast(sync_id as {{ bigint }}) as sync_id,
        cast(sync_run_id as {{ bigint }}) as sync_run_id,
        cast(op_type as {{ string }}) as op_type,
        cast(row_id as {{ string }}) as row_id,
        cast(status as {{ string }}) as status,
        cast(failed_reason as {{ string }}) as failed_reason,
        {%- set hightouch_changelog = source('sync_logs_hightouch', 'sync_changelog') %}
        {{ sync_logs.protect_payload(
            'cast(' ~ sync_logs.column_or_null(hightouch_changelog, 'fields', string) ~ ' as ' ~ string ~ ')') }} as fields,
        cast({{ sync_logs.column_or_null(hightouch_changelog, 'split_group', string) }} as {{ string }}) as split_group
    from {{ hightouch_changelog }}
),

attempts as (
    -- joined on the run's full key: joining on sync_id alone repeats every row once per run
    select
        changelog.sync_id,
        changelog.sync_run_id,
        changelog.op_type,
        changelog.row_id,
        changelog.status,
        changelog.failed_reason,
        changelog.fields,
        changelog.split_group,
        runs.started_at as run_started_at,
        runs.finished_at as run_finished_at,
        {{ dbt.hash(dbt.concat([
            "cast(changelog.sync_id as " ~ string ~ ")", "'|'",
            "cast(changelog.sync_run_id as " ~ string ~ ")", "'|'",
            "coalesce(changelog.row_id, '<null>')", "'|'",
            "coalesce(changelog.op_type, '')", "'|'",
            "coalesce(changelog.status, '')", "'|'",
            "coalesce(changelog.fields, '')"])) }} as log_id,
        -- Hightouch gives op_type: a removal is the state a succeeded `removed` leaves
        case when changelog.op_type = 'removed' then 'removed' else 'present' end as success_state
    from changelog
    left join runs
        on changelog.sync_id = runs.sync_id
        and changelog.sync_run_id = runs.sync_run_id
),

{#- Hightouch records no order within a run: the latest attempt is the one with the highest log id -#}
{{ sync_logs.previous_success_ctes('attempts', 'log_id desc') }}

select
    attempts.log_id,
    cast(null as {{ bigint }}) as org_id,
    attempts.sync_id,
    attempts.sync_run_id,
    attempts.op_type,
    attempts.row_id,
    attempts.status,
    attempts.failed_reason,
    attempts.fields,
    attempts.split_group,
    cast(null as {{ string }}) as operation,
    cast(null as {{ string }}) as raw_status,
    {{ sync_logs.payload_changed('attempts.op_type', 'attempts.fields', 'previous.previous_fields') }} as payload_changed,
    attempts.run_started_at as batch_started_at,
    attempts.run_finished_at as batch_ended_at,
    cast(null as {{ string }}) as batch_file,
    cast(null as {{ timestamp }}) as logged_at,
    {{ sync_logs.payload_truncated('attempts.fields') }} as payload_truncated
from attempts
left join sync_logs_previous_success as previous
    on attempts.sync_id = previous.sync_id
    and attempts.row_id = previous.row_id
    and attempts.sync_run_id = previous.sync_run_id

{% elif mode == 'census' %}

with sync_log as (
    select
        cast(log_id as {{ string }}) as log_id,
        cast(sync_id as {{ bigint }}) as sync_id,
        cast(sync_run_id as {{ bigint }}) as sync_run_id,
        cast(record_identifier as {{ string }}) as row_id,
        {{ sync_logs.protect_payload('cast(record_payload as ' ~ string ~ ')') }} as fields,
        cast(operation as {{ string }}) as operation,
        cast(status as {{ string }}) as raw_status,
        cast(status_message as {{ string }}) as status_message,
        cast(batch_started_at as {{ timestamp }}) as batch_started_at,
        cast(batch_completed_at as {{ timestamp }}) as batch_ended_at,
        cast({{ var('sync_logs_census_logged_at_column') }} as {{ timestamp }}) as logged_at
    from {{ source('sync_logs_census', 'sync_log') }}
),

attempts as (
    -- the rules of the canonical contract, as in sync_logs.canonical.changelog (macros/rules/)
    select
        log_id,
        sync_id,
        sync_run_id,
        row_id,
        fields,
        operation,
        raw_status,
        batch_started_at,
        batch_ended_at,
        logged_at,
        min(batch_started_at) over (partition by sync_id, sync_run_id) as run_started_at,
        {{ sync_logs.changelog_status('raw_status', 'row_id') }} as status,
        -- Census has no runs table: a run-level error can only be in the status_message of the
        -- records the run never attempted, so that message is their run's error
        {{ sync_logs.changelog_failed_reason('raw_status', 'status_message', 'status_message', 'row_id') }}
            as failed_reason,
        -- Census records no run behaviour: its `operation` is the sync's behaviour (`append` too)
        {{ sync_logs.base_op_type('row_id', 'operation', 'cast(null as ' ~ string ~ ')') }} as base_op_type,
        case
            when {{ sync_logs.base_op_type('row_id', 'operation', 'cast(null as ' ~ string ~ ')') }} = 'removed'
                then 'removed'
            else 'present'
        end as success_state
    from sync_log
),

{#- Within a run, attempts are ordered by batch time (unknown last), then log id. -#}
{{ sync_logs.previous_success_ctes(
    'attempts',
    'case when batch_started_at is null then 0 else 1 end, batch_started_at desc, log_id desc') }},

typed as (
    select
        attempts.log_id,
        attempts.sync_id,
        attempts.sync_run_id,
        {{ sync_logs.op_type('attempts.row_id', 'attempts.base_op_type', 'previous.previous_state') }} as op_type,
        attempts.row_id,
        attempts.status,
        attempts.failed_reason,
        attempts.fields,
        previous.previous_fields,
        attempts.operation,
        attempts.raw_status,
        attempts.batch_started_at,
        attempts.batch_ended_at,
        attempts.logged_at
    from attempts
    left join sync_logs_previous_success as previous
        on attempts.sync_id = previous.sync_id
        and attempts.row_id = previous.row_id
        and attempts.sync_run_id = previous.sync_run_id
)

select
    log_id,
    cast(null as {{ bigint }}) as org_id,
    sync_id,
    sync_run_id,
    op_type,
    row_id,
    status,
    failed_reason,
    fields,
    cast(null as {{ string }}) as split_group,
    operation,
    raw_status,
    {{ sync_logs.payload_changed('op_type', 'fields', 'previous_fields') }} as payload_changed,
    batch_started_at,
    batch_ended_at,
    cast(null as {{ string }}) as batch_file,
    logged_at,
    {{ sync_logs.payload_truncated('fields') }} as payload_truncated
from typed

{% endif %}
