{#- One row per run with two fingerprints of what the sync-scoped incremental models read of
    it. `run_fingerprint`: its `sync_runs` row, the names of its objects, the number of its
    changelog rows and the latest `logged_at` among them (a load or reload by this package
    stamps every new or changed row), and the settings that shape those models' rows: all
    that a run-scoped model (`sync_logs_run_scoped`, rows of one run each) reads of it,
    including the error taxonomy (seed `sync_logs_error_categories` and var
    `sync_logs_extra_error_categories`) that `int_sync_logs__error_rows` classifies with.
    `fingerprint`: the same and its sync's snapshot rows (their number and latest attempt),
    for the other sync-scoped models. A run whose fingerprint is new, changed or gone makes
    its sync's rows be rewritten (`changed_runs`), or only its own where the model is
    run-scoped and the run is new and started after its sync's recorded runs
    (`run_started_at`). -#}
{%- set rules = sync_logs.payload_rules() -%}
{%- set settings = tojson({
    'payload_fields_to_drop': rules['drop'],
    'payload_fields_to_hash': rules['hash'],
    'payload_hash_salt': local_md5(rules['salt']),
    'max_payload_bytes': rules['max_bytes'],
    'flapping_min_cycles': var('sync_logs_flapping_min_cycles'),
    'flapping_min_changes': var('sync_logs_flapping_min_changes'),
    'extra_error_categories': var('sync_logs_extra_error_categories'),
}) -%}
{%- set run_described = ["'" ~ settings | replace("'", "''") ~ "'"] -%}
{%- for part in [
    'runs.started_at', 'runs.finished_at', 'runs.status', 'runs.model_id', 'runs.model_name',
    'runs.destination', 'runs.destination_id', 'runs.destination_object_id', 'runs.source_object_id',
    'source_objects.source_object_type', 'source_objects.source_object_name',
    'destinations.destination_type', 'destinations.destination_name',
    'destination_objects.destination_object_name',
    'changelog.num_changelog_rows', 'changelog.last_logged_at', 'error_taxonomy.patterns'] -%}
    {%- do run_described.extend(["'|'", "coalesce(cast(" ~ part ~ " as " ~ dbt.type_string() ~ "), '~')"]) -%}
{%- endfor %}
{%- set described = run_described[:] -%}
{%- for part in ['snapshot.num_snapshot_rows', 'snapshot.last_attempted_at'] -%}
    {%- do described.extend(["'|'", "coalesce(cast(" ~ part ~ " as " ~ dbt.type_string() ~ "), '~')"]) -%}
{%- endfor %}

with runs as (
    select
        sync_id,
        sync_run_id,
        started_at,
        finished_at,
        status,
        model_id,
        model_name,
        destination,
        destination_id,
        destination_object_id,
        source_object_id
    from {{ ref('stg_sync_logs__sync_runs') }}
),

changelog as (
    select
        sync_id,
        sync_run_id,
        count(*) as num_changelog_rows,
        max(logged_at) as last_logged_at
    from {{ ref('stg_sync_logs__sync_changelog') }}
    group by sync_id, sync_run_id
),

snapshot as (
    select
        sync_id,
        count(*) as num_snapshot_rows,
        max(last_attempted_at) as last_attempted_at
    from {{ ref('stg_sync_logs__sync_snapshot') }}
    group by sync_id
),

{%- set string = dbt.type_string() %}

{#- the seed's patterns, one text: a change to them rewrites the error rows -#}
error_taxonomy as (
    select
        {{ sync_logs.string_agg_sorted(dbt.concat([
            "coalesce(cast(pattern as " ~ string ~ "), '~')", "'|'",
            "coalesce(cast(category as " ~ string ~ "), '~')", "'|'",
            "coalesce(cast(priority as " ~ string ~ "), '~')", "'|'",
            "coalesce(cast(error_class as " ~ string ~ "), '~')", "'|'",
            "coalesce(cast(is_retryable as " ~ string ~ "), '~')"]), "';'") }} as patterns
    from {{ ref('sync_logs_error_categories') }}
)

select
    runs.sync_id,
    runs.sync_run_id,
    runs.started_at as run_started_at,
    {{ dbt.hash(dbt.concat(described)) }} as fingerprint,
    {{ dbt.hash(dbt.concat(run_described)) }} as run_fingerprint
from runs
left join changelog
    on runs.sync_id = changelog.sync_id
    and runs.sync_run_id = changelog.sync_run_id
left join snapshot
    on runs.sync_id = snapshot.sync_id
left join {{ ref('stg_sync_logs__source_objects') }} as source_objects
    on runs.source_object_id = source_objects.source_object_id
left join {{ ref('stg_sync_logs__destinations') }} as destinations
    on runs.destination_id = destinations.destination_id
left join {{ ref('stg_sync_logs__destination_objects') }} as destination_objects
    on runs.destination_object_id = destination_objects.destination_object_id
cross join error_taxonomy
