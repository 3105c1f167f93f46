{#- One row per sync with the names of its latest run: model, destination, destination object. -#}

with runs as (
    select
        sync_id,
        sync_run_id,
        started_at,
        model_id,
        model_name,
        destination,
        destination_id,
        destination_object_id,
        source_object_id
    from {{ ref('stg_sync_logs__sync_runs') }}
),

latest_run as (
    {{ sync_logs.first_per_partition(
        'runs', 'sync_id', 'started_at desc, sync_run_id desc',
        ['sync_id', 'model_id', 'model_name', 'destination', 'destination_id',
         'destination_object_id', 'source_object_id']) }}
)

select
    latest_run.sync_id,
    latest_run.model_id,
    coalesce(latest_run.model_name, source_objects.source_object_name) as model_name,
    source_objects.source_object_type,
    coalesce(latest_run.destination, destinations.destination_type) as destination,
    latest_run.destination_id,
    destinations.destination_name,
    latest_run.destination_object_id,
    destination_objects.destination_object_name
from latest_run
left join {{ ref('stg_sync_logs__source_objects') }} as source_objects
    on latest_run.source_object_id = source_objects.source_object_id
left join {{ ref('stg_sync_logs__destinations') }} as destinations
    on latest_run.destination_id = destinations.destination_id
left join {{ ref('stg_sync_logs__destination_objects') }} as destination_objects
    on latest_run.destination_object_id = destination_objects.destination_object_id
