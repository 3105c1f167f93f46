{#- SQL of the record attempts that pruning deletes: `sync_id`, `sync_run_id`, `log_id` of
    every attempt of an active sync whose run started before the horizon (`as_of` minus
    `retention_days`), except the anchors below. An anchor is a (sync_id, row_id,
    sync_run_id) group (all attempts of one row in one run), kept whole so that the attempt
    each mart picks within a run is unchanged. Per (sync_id, row_id) the kept groups are:
    the latest run that attempted the row (sync_snapshot, last attempt of row_operations);
    the latest run before the horizon with a succeeded attempt (the last succeeded state, from
    which the changelog derives op_type and payload_changed of later runs, also for a late run
    inside the retention window); every run with a succeeded `added` or `removed` attempt
    (first_added_at, membership history); the run of the maximal success time (sync_snapshot
    last_succeeded_at); the run of the latest succeeded attempt (row_operations); and, over
    each run's last valid attempt (the one int_sync_logs__row_runs picks), the runs where
    membership changes and the latest succeeded and latest added/changed ones
    (membership_history, audience_events, current_members, row_lifecycle). In mode `census`
    the first-sent batch of every run is kept too (Census runs start at their first batch).
    Attempts with a null row_id before the horizon all go. -#}
{% macro retention_doomed_rows_sql(settings) %}
    {%- set mode = sync_logs.source_mode() -%}
    {%- set string = dbt.type_string() -%}
    {%- set bigint = dbt.type_bigint() -%}
    {%- set timestamp = dbt.type_timestamp() -%}
    {%- if settings.as_of is none -%}
        {%- set now = dbt.current_timestamp_in_utc_backcompat() -%}
    {%- else -%}
        {%- set now = "cast('" ~ dbt.escape_single_quotes(settings.as_of | string) ~ "' as " ~ timestamp ~ ")" -%}
    {%- endif -%}
    {%- set horizon = dbt.dateadd('day', -1 * settings.retention_days, now) -%}
    {%- set by_row = 'partition by row_runs.sync_id, row_runs.row_id' -%}
with sync_logs_runs as (
    {%- if mode == 'census' %}
    select
        sync_id,
        sync_run_id,
        min(batch_started_at) as run_started_at
    from {{ sync_logs.retention_relation('stg_sync_logs__sync_changelog') }}
    group by sync_id, sync_run_id
    {%- else %}
    select
        cast(sync_id as {{ bigint }}) as sync_id,
        cast(sync_run_id as {{ bigint }}) as sync_run_id,
        cast(started_at as {{ timestamp }}) as run_started_at
    from {{ sync_logs.retention_relation('sync_runs') }}
    {%- endif %}
),

sync_logs_active_syncs as (
    select runs.sync_id
    from sync_logs_runs as runs
    where runs.sync_id is not null
    {%- if settings.inactive_syncs %}
        and runs.sync_id not in ({{ settings.inactive_syncs | join(', ') }})
    {%- endif %}
    {%- if settings.inactive_syncs_relation %}
        {%- set name = settings.inactive_syncs_relation %}
        and not exists (
            select 1
            from {{ name if '.' in name else ref(name) }} as inactive
            where cast(inactive.sync_id as {{ bigint }}) = runs.sync_id
        )
    {%- endif %}
    group by runs.sync_id
    {%- if settings.inactive_after_days is not none %}
    having max(runs.run_started_at) >= {{ dbt.dateadd('day', -1 * settings.inactive_after_days, now) }}
    {%- endif %}
),

sync_logs_changelog as (
    {%- if mode == 'census' %}
    select
        log_id,
        sync_id,
        sync_run_id,
        row_id,
        op_type,
        status,
        batch_started_at,
        batch_ended_at
    from {{ sync_logs.retention_relation('stg_sync_logs__sync_changelog') }}
    {%- else %}
    select
        cast(log_id as {{ string }}) as log_id,
        cast(sync_id as {{ bigint }}) as sync_id,
        cast(sync_run_id as {{ bigint }}) as sync_run_id,
        cast(row_id as {{ string }}) as row_id,
        cast(op_type as {{ string }}) as op_type,
        cast(status as {{ string }}) as status,
        cast(batch_started_at as {{ timestamp }}) as batch_started_at,
        cast(batch_ended_at as {{ timestamp }}) as batch_ended_at
    from {{ sync_logs.retention_relation('sync_changelog') }}
    {%- endif %}
),

sync_logs_attempts as (
    select
        changelog.log_id,
        changelog.sync_id,
        changelog.sync_run_id,
        changelog.row_id,
        changelog.op_type,
        changelog.status,
        runs.run_started_at,
        coalesce(changelog.batch_started_at, runs.run_started_at) as attempted_at,
        coalesce(changelog.batch_ended_at, changelog.batch_started_at, runs.run_started_at) as success_time,
        case when runs.run_started_at < {{ horizon }} then 1 else 0 end as is_old,
        {%- if mode == 'census' %}
        case when changelog.batch_started_at = runs.run_started_at then 1 else 0 end as holds_run_start
        {%- else %}
        0 as holds_run_start
        {%- endif %}
    from sync_logs_changelog as changelog
    inner join sync_logs_runs as runs
        on changelog.sync_id = runs.sync_id
        and changelog.sync_run_id = runs.sync_run_id
    inner join sync_logs_active_syncs as active
        on changelog.sync_id = active.sync_id
),

sync_logs_valid_attempts as (
    select
        sync_id,
        row_id,
        sync_run_id,
        op_type,
        status,
        attempted_at,
        log_id
    from sync_logs_attempts
    where {{ sync_logs.row_version_candidate() }}
),

sync_logs_representatives as (
    {{ sync_logs.first_per_partition(
        'sync_logs_valid_attempts', 'sync_id, row_id, sync_run_id', sync_logs.row_version_first(),
        ['sync_id', 'row_id', 'sync_run_id', 'op_type', 'status', 'attempted_at']) }}
),

sync_logs_row_runs as (
    select
        sync_id,
        row_id,
        sync_run_id,
        max(run_started_at) as run_started_at,
        max(is_old) as is_old,
        max(holds_run_start) as holds_run_start,
        max(case when status = 'succeeded' then 1 else 0 end) as has_success,
        max(case when status = 'succeeded' and op_type in ('added', 'removed') then 1 else 0 end) as has_membership_op,
        max(case when status = 'succeeded' then success_time end) as max_success_time,
        max(case when status = 'succeeded' then attempted_at end) as max_succeeded_at
    from sync_logs_attempts
    where row_id is not null
    group by sync_id, row_id, sync_run_id
),

sync_logs_ranked as (
    select
        row_runs.sync_id,
        row_runs.row_id,
        row_runs.sync_run_id,
        row_runs.run_started_at,
        row_runs.is_old,
        row_runs.holds_run_start,
        row_runs.has_success,
        row_runs.has_membership_op,
        row_runs.max_success_time,
        row_runs.max_succeeded_at,
        representatives.op_type as representative_op_type,
        representatives.status as representative_status,
        representatives.attempted_at as representative_at,
        case
            when representatives.status = 'succeeded' and representatives.op_type = 'removed' then 'absent'
            when representatives.status = 'succeeded' then 'present'
        end as representative_state,
        row_number() over (
            {{ by_row }} order by row_runs.run_started_at desc, row_runs.sync_run_id desc
        ) as recency,
        row_number() over (
            {{ by_row }}, row_runs.has_success, row_runs.is_old
            order by row_runs.run_started_at desc, row_runs.sync_run_id desc
        ) as recency_in_class,
        max(row_runs.max_success_time) over ({{ by_row }}) as row_max_success_time,
        max(row_runs.max_succeeded_at) over ({{ by_row }}) as row_max_succeeded_at,
        max(case when representatives.status = 'succeeded' then representatives.attempted_at end)
            over ({{ by_row }}) as row_max_representative_success_at,
        max(
            case
                when representatives.status = 'succeeded' and representatives.op_type in ('added', 'changed')
                    then representatives.attempted_at
            end
        ) over ({{ by_row }}) as row_max_representative_update_at
    from sync_logs_row_runs as row_runs
    left join sync_logs_representatives as representatives
        on row_runs.sync_id = representatives.sync_id
        and row_runs.row_id = representatives.row_id
        and row_runs.sync_run_id = representatives.sync_run_id
),

sync_logs_transitions as (
    select
        sync_id,
        row_id,
        sync_run_id,
        representative_state,
        coalesce(
            lag(representative_state) over (
                partition by sync_id, row_id order by run_started_at, sync_run_id
            ),
            'absent'
        ) as previous_state
    from sync_logs_ranked
    where representative_state is not null
),

sync_logs_kept_row_runs as (
    select
        ranked.sync_id,
        ranked.row_id,
        ranked.sync_run_id
    from sync_logs_ranked as ranked
    left join sync_logs_transitions as transitions
        on ranked.sync_id = transitions.sync_id
        and ranked.row_id = transitions.row_id
        and ranked.sync_run_id = transitions.sync_run_id
    where ranked.is_old = 0
        or ranked.recency = 1
        or (ranked.has_success = 1 and ranked.is_old = 1 and ranked.recency_in_class = 1)
        or ranked.has_membership_op = 1
        or ranked.holds_run_start = 1
        or ranked.max_success_time = ranked.row_max_success_time
        or ranked.max_succeeded_at = ranked.row_max_succeeded_at
        or (ranked.representative_state is not null
            and ranked.representative_at = ranked.row_max_representative_success_at)
        or (ranked.representative_status = 'succeeded'
            and ranked.representative_op_type in ('added', 'changed')
            and ranked.representative_at = ranked.row_max_representative_update_at)
        or transitions.representative_state <> transitions.previous_state
)

select
    attempts.sync_id,
    attempts.sync_run_id,
    attempts.log_id
from sync_logs_attempts as attempts
where attempts.is_old = 1
    and attempts.holds_run_start = 0
    and not exists (
        select 1
        from sync_logs_kept_row_runs as kept
        where kept.sync_id = attempts.sync_id
            and kept.row_id = attempts.row_id
            and kept.sync_run_id = attempts.sync_run_id
    )
{%- endmacro %}
