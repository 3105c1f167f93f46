{#- Plain-text table for the terminal: a header, a rule, one line per row, columns padded to
    their widest value and separated by ` | `, no trailing spaces. `rows` are sequences (an
    agate table's rows, lists) in `columns` order; null prints as an empty cell, a timestamp
    as `YYYY-MM-DD HH:MM:SS[.ffffff]`, line breaks as spaces, and a value longer than
    `max_width` characters is cut to that length, ending in `...`. Returns the text. -#}
{% macro format_text_table(columns, rows, max_width=60) %}
    {%- set cells = [] -%}
    {%- for row in rows -%}
        {%- set line = [] -%}
        {%- for value in row -%}
            {%- if value is none -%}
                {%- set text = '' -%}
            {%- elif value.isoformat is defined -%}
                {%- set text = value.isoformat(' ') -%}
            {%- else -%}
                {%- set text = value | string -%}
            {%- endif -%}
            {%- set text = text | replace('\r', ' ') | replace('\n', ' ') -%}
            {%- if text | length > max_width -%}
                {%- set text = text[:max_width - 3] ~ '...' -%}
            {%- endif -%}
            {%- do line.append(text) -%}
        {%- endfor -%}
        {%- do cells.append(line) -%}
    {%- endfor -%}
    {%- set widths = [] -%}
    {%- for column in columns -%}
        {%- set position = loop.index0 -%}
        {%- set lengths = [column | length] -%}
        {%- for line in cells -%}
            {%- do lengths.append(line[position] | length) -%}
        {%- endfor -%}
        {%- do widths.append(lengths | max) -%}
    {%- endfor -%}
    {%- set header = [] -%}
    {%- set rule = [] -%}
    {%- for column in columns -%}
        {%- do header.append(column.ljust(widths[loop.index0])) -%}
        {%- do rule.append('-' * widths[loop.index0]) -%}
    {%- endfor -%}
    {%- set lines = [header | join(' | '), rule | join(' | ')] -%}
    {%- for line in cells -%}
        {%- set padded = [] -%}
        {%- for text in line -%}
            {%- do padded.append(text.ljust(widths[loop.index0])) -%}
        {%- endfor -%}
        {%- do lines.append(padded | join(' | ')) -%}
    {%- endfor -%}
    {%- set stripped = [] -%}
    {%- for line in lines -%}
        {%- do stripped.append(line.rstrip()) -%}
    {%- endfor -%}
    {{ return(stripped | join('\n')) }}
{% endmacro %}
