{#- One row per source object (model, segment, cohort, entity, table). Hightouch has no such
    table: in that mode this is empty and marts take names from `sync_runs`. -#}
{%- set mode = sync_logs.source_mode() -%}
{%- set string = dbt.type_string() -%}
{%- set bigint = dbt.type_bigint() -%}

{% if mode == 'hightouch' %}
select
    cast(null as {{ bigint }}) as source_object_id,
    cast(null as {{ string }}) as source_object_type,
    cast(null as {{ string }}) as source_object_name,
    cast(null as {{ bigint }}) as model_id,
    cast(null as {{ bigint }}) as business_object_id,
    cast(null as {{ bigint }}) as filter_segment_id,
    cast(null as {{ bigint }}) as cohort_id
where 1 = 0
{% else %}
select
    cast(id as {{ bigint }}) as source_object_id,
    cast(type as {{ string }}) as source_object_type,
    cast(name as {{ string }}) as source_object_name,
    cast(model_id as {{ bigint }}) as model_id,
    cast(business_object_id as {{ bigint }}) as business_object_id,
    cast(filter_segment_id as {{ bigint }}) as filter_segment_id,
    cast(cohort_id as {{ bigint }}) as cohort_id
from {{ source('sync_logs_census', 'source_objects') if mode == 'census' else sync_logs.canonical_relation('source_objects') }}
{% endif %}
