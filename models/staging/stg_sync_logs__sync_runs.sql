{#- One row per sync run with the canonical `sync_runs` columns in every mode. Census has
    no runs table: its runs are derived from `sync_log` (start = first batch sent, finish =
    last batch completed when every batch completed, counts from the derived changelog) and
    named from its metadata tables. -#}
{%- set mode = sync_logs.source_mode() -%}
{%- set string = dbt.type_string() -%}
{%- set bigint = dbt.type_bigint() -%}
{%- set timestamp = dbt.type_timestamp() -%}

{% if mode in ['package', 'tables', 'hightouch'] %}

select
    cast(sync_id as {{ bigint }}) as sync_id,
    cast(sync_run_id as {{ bigint }}) as sync_run_id,
{%- if mode == 'hightouch' %}
    cast(null as {{ bigint }}) as org_id,
    cast(null as {{ bigint }}) as workspace_id,
{%- else %}
    cast(org_id as {{ bigint }}) as org_id,
    cast(workspace_id as {{ bigint }}) as workspace_id,
{%- endif %}
    cast(primary_key as {{ string }}) as primary_key,
    cast(destination as {{ string }}) as destination,
    cast(model_name as {{ string }}) as model_name,
    cast(model_id as {{ bigint }}) as model_id,
    cast(status as {{ string }}) as status,
    cast(error as {{ string }}) as error,
    cast(started_at as {{ timestamp }}) as started_at,
    cast(finished_at as {{ timestamp }}) as finished_at,
{%- if mode == 'hightouch' %}
    cast(null as {{ string }}) as behavior,
    cast({{ sync_logs.column_or_null(source('sync_logs_hightouch', 'sync_runs'), 'split_group', string) }} as {{ string }}) as split_group,
    cast(null as {{ bigint }}) as source_id,
    cast(null as {{ bigint }}) as source_object_id,
    cast(null as {{ bigint }}) as destination_id,
    cast(null as {{ bigint }}) as destination_object_id,
    cast(num_planned_add as {{ bigint }}) as num_planned_add,
    cast(num_planned_change as {{ bigint }}) as num_planned_change,
    cast(num_planned_remove as {{ bigint }}) as num_planned_remove,
    cast(num_attempted_add as {{ bigint }}) as num_attempted_add,
    cast(num_attempted_change as {{ bigint }}) as num_attempted_change,
    cast(num_attempted_remove as {{ bigint }}) as num_attempted_remove,
    cast(num_succeeded_add as {{ bigint }}) as num_succeeded_add,
    cast(num_succeeded_change as {{ bigint }}) as num_succeeded_change,
    cast(num_succeeded_remove as {{ bigint }}) as num_succeeded_remove,
    cast(num_failed_add as {{ bigint }}) as num_failed_add,
    cast(num_failed_change as {{ bigint }}) as num_failed_change,
    cast(num_failed_remove as {{ bigint }}) as num_failed_remove,
    cast(null as {{ bigint }}) as num_invalid,
    cast(null as {{ bigint }}) as num_redelivered,
    cast(null as {{ bigint }}) as num_records
from {{ source('sync_logs_hightouch', 'sync_runs') }}
{%- else %}
    cast(behavior as {{ string }}) as behavior,
    cast(split_group as {{ string }}) as split_group,
    cast(source_id as {{ bigint }}) as source_id,
    cast(source_object_id as {{ bigint }}) as source_object_id,
    cast(destination_id as {{ bigint }}) as destination_id,
    cast(destination_object_id as {{ bigint }}) as destination_object_id,
    cast(num_planned_add as {{ bigint }}) as num_planned_add,
    cast(num_planned_change as {{ bigint }}) as num_planned_change,
    cast(num_planned_remove as {{ bigint }}) as num_planned_remove,
    cast(num_attempted_add as {{ bigint }}) as num_attempted_add,
    cast(num_attempted_change as {{ bigint }}) as num_attempted_change,
    cast(num_attempted_remove as {{ bigint }}) as num_attempted_remove,
    cast(num_succeeded_add as {{ bigint }}) as num_succeeded_add,
    cast(num_succeeded_change as {{ bigint }}) as num_succeeded_change,
    cast(num_succeeded_remove as {{ bigint }}) as num_succeeded_remove,
    cast(num_failed_add as {{ bigint }}) as num_failed_add,
    cast(num_failed_change as {{ bigint }}) as num_failed_change,
    cast(num_failed_remove as {{ bigint }}) as num_failed_remove,
    cast(num_invalid as {{ bigint }}) as num_invalid,
    cast(num_redelivered as {{ bigint }}) as num_redelivered,
    cast(num_records as {{ bigint }}) as num_records
from {{ sync_logs.canonical_relation('sync_runs') }}
{%- endif %}

{% elif mode == 'census' %}

with run_ids as (
    select
        cast(sync_id as {{ bigint }}) as sync_id,
        cast(sync_run_id as {{ bigint }}) as sync_run_id,
        max(cast(source_id as {{ bigint }})) as source_id,
        max(cast(source_object_id as {{ bigint }})) as source_object_id,
        max(cast(destination_id as {{ bigint }})) as destination_id,
        max(cast(destination_object_id as {{ bigint }})) as destination_object_id
    from {{ source('sync_logs_census', 'sync_log') }}
    group by cast(sync_id as {{ bigint }}), cast(sync_run_id as {{ bigint }})
),

run_counts as (
    select
        sync_id,
        sync_run_id,
        min(batch_started_at) as started_at,
        case when count(batch_ended_at) = count(*) then max(batch_ended_at) end as finished_at,
        {{ sync_logs.run_counters() }},
        count(*) as num_records
    from {{ ref('stg_sync_logs__sync_changelog') }}
    group by sync_id, sync_run_id
)

select
    run_counts.sync_id,
    run_counts.sync_run_id,
    cast(null as {{ bigint }}) as org_id,
    cast(null as {{ bigint }}) as workspace_id,
    cast(null as {{ string }}) as primary_key,
    destinations.destination_type as destination,
    source_objects.source_object_name as model_name,
    source_objects.model_id,
    cast(null as {{ string }}) as status,
    cast(null as {{ string }}) as error,
    run_counts.started_at,
    run_counts.finished_at,
    cast(null as {{ string }}) as behavior,
    cast(null as {{ string }}) as split_group,
    run_ids.source_id,
    run_ids.source_object_id,
    run_ids.destination_id,
    run_ids.destination_object_id,
    run_counts.num_planned_add,
    run_counts.num_planned_change,
    run_counts.num_planned_remove,
    run_counts.num_attempted_add,
    run_counts.num_attempted_change,
    run_counts.num_attempted_remove,
    run_counts.num_succeeded_add,
    run_counts.num_succeeded_change,
    run_counts.num_succeeded_remove,
    run_counts.num_failed_add,
    run_counts.num_failed_change,
    run_counts.num_failed_remove,
    run_counts.num_invalid,
    cast(0 as {{ bigint }}) as num_redelivered,
    run_counts.num_records
from run_counts
left join run_ids
    on run_counts.sync_id = run_ids.sync_id
    and run_counts.sync_run_id = run_ids.sync_run_id
left join {{ ref('stg_sync_logs__source_objects') }} as source_objects
    on run_ids.source_object_id = source_objects.source_object_id
left join {{ ref('stg_sync_logs__destinations') }} as destinations
    on run_ids.destination_id = destinations.destination_id

{% endif %}
