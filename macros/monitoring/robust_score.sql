{#- A robust z-score: how many (scaled) median absolute deviations `value` lies from
    `median`, `(value - median) / spread`, where spread is the larger of 1.4826 x `mad` (the
    standard deviation of a normal distribution with that MAD), `min_spread_ratio` x
    |median| and `floor` (so that a perfectly steady baseline, MAD 0, still gives a finite
    score). Null when the value or the median is null. All arguments are SQL expressions or
    numbers. -#}
{% macro robust_score(value, median, mad, floor) %}
    {%- set ratio = sync_logs.monitoring_settings()['min_spread_ratio'] -%}
    case
        when {{ value }} is not null and {{ median }} is not null
            then ({{ value }} - {{ median }}) / greatest(
                1.4826 * coalesce({{ mad }}, 0),
                {{ ratio }} * abs({{ median }}),
                {{ floor }}
            )
    end
{% endmacro %}
