{#- Generic data test: no two rows share the same values of `columns` (nulls compare equal). -#}
{% test sync_logs_unique_combination(model, columns) %}
select
    {{ columns | join(', ') }},
    count(*) as sync_logs_duplicates
from {{ model }}
group by {{ columns | join(', ') }}
having count(*) > 1
{% endtest %}
