{#- Latest state of every row per sync, with the canonical `sync_snapshot` columns in every
    mode. Hightouch's snapshot lacks the run id and timestamps, Census has no snapshot: both
    are derived from the staged changelog. op_type by the macro `snapshot_op_type`, times by
    `snapshot_row_times`. -#}
{%- set mode = sync_logs.source_mode() -%}
{%- set string = dbt.type_string() -%}
{%- set bigint = dbt.type_bigint() -%}
{%- set timestamp = dbt.type_timestamp() -%}

{% if mode in ['package', 'tables'] %}

select
    cast(sync_id as {{ bigint }}) as sync_id,
    cast(sync_run_id as {{ bigint }}) as sync_run_id,
    cast(op_type as {{ string }}) as op_type,
    cast(row_id as {{ string }}) as row_id,
    cast(status as {{ string }}) as status,
    cast(failed_reason as {{ string }}) as failed_reason,
    {{ sync_logs.protect_payload('cast(fields as ' ~ string ~ ')') }} as fields,
    cast(split_group as {{ string }}) as split_group,
    cast(last_attempted_at as {{ timestamp }}) as last_attempted_at,
    cast(last_succeeded_at as {{ timestamp }}) as last_succeeded_at,
    cast(first_added_at as {{ timestamp }}) as first_added_at
from {{ sync_logs.canonical_relation('sync_snapshot') }}

{% else %}

with changelog as (
    select
        changelog.sync_id,
        changelog.sync_run_id,
        changelog.log_id,
        changelog.op_type,
        changelog.row_id,
        changelog.status,
        changelog.failed_reason,
        changelog.fields,
        changelog.split_group,
        changelog.batch_started_at,
        changelog.batch_ended_at,
        runs.started_at as run_started_at
    from {{ ref('stg_sync_logs__sync_changelog') }} as changelog
    inner join {{ ref('stg_sync_logs__sync_runs') }} as runs
        on changelog.sync_id = runs.sync_id
        and changelog.sync_run_id = runs.sync_run_id
    where changelog.row_id is not null
),

latest_attempt as (
    {{ sync_logs.first_per_partition(
        'changelog',
        'sync_id, row_id',
        sync_logs.snapshot_newest_first(),
        ['sync_id', 'sync_run_id', 'op_type', 'row_id', 'status', 'failed_reason', 'fields', 'split_group']) }}
),

row_times as (
    {{ sync_logs.snapshot_row_times('changelog') }}
),

latest_run as (
    {{ sync_logs.first_per_partition(
        ref('stg_sync_logs__sync_runs'),
        'sync_id',
        'started_at desc, sync_run_id desc',
        ['sync_id', 'sync_run_id']) }}
)

{% if mode == 'hightouch' %}
, snapshot as (
    select
        cast(sync_id as {{ bigint }}) as sync_id,
        cast(op_type as {{ string }}) as op_type,
        cast(row_id as {{ string }}) as row_id,
        cast(status as {{ string }}) as status,
        cast(failed_reason as {{ string }}) as failed_reason,
        {%- set hightouch_snapshot = source('sync_logs_hightouch', 'sync_snapshot') %}
        {{ sync_logs.protect_payload(
            'cast(' ~ sync_logs.column_or_null(hightouch_snapshot, 'fields', string) ~ ' as ' ~ string ~ ')') }} as fields,
        cast({{ sync_logs.column_or_null(hightouch_snapshot, 'split_group', string) }} as {{ string }}) as split_group
    from {{ hightouch_snapshot }}
)

select
    snapshot.sync_id,
    latest_attempt.sync_run_id,
    -- Hightouch decides `unchanged` itself; a removal it did not complete reads `changed`
    {{ sync_logs.snapshot_op_type('snapshot.op_type', 'snapshot.status', 'true') }} as op_type,
    snapshot.row_id,
    snapshot.status,
    snapshot.failed_reason,
    snapshot.fields,
    snapshot.split_group,
    row_times.last_attempted_at,
    row_times.last_succeeded_at,
    row_times.first_added_at
from snapshot
left join latest_attempt
    on snapshot.sync_id = latest_attempt.sync_id
    and snapshot.row_id = latest_attempt.row_id
left join row_times
    on snapshot.sync_id = row_times.sync_id
    and snapshot.row_id = row_times.row_id

{% else %}

select
    latest_attempt.sync_id,
    latest_attempt.sync_run_id,
    {{ sync_logs.snapshot_op_type(
        'latest_attempt.op_type', 'latest_attempt.status',
        'latest_attempt.sync_run_id = latest_run.sync_run_id') }} as op_type,
    latest_attempt.row_id,
    latest_attempt.status,
    latest_attempt.failed_reason,
    latest_attempt.fields,
    latest_attempt.split_group,
    row_times.last_attempted_at,
    row_times.last_succeeded_at,
    row_times.first_added_at
from latest_attempt
inner join row_times
    on latest_attempt.sync_id = row_times.sync_id
    and latest_attempt.row_id = row_times.row_id
left join latest_run
    on latest_attempt.sync_id = latest_run.sync_id
where not (latest_attempt.status = 'succeeded' and latest_attempt.op_type = 'removed')

{% endif %}
{% endif %}
