"""Safe conversions of lake values: casts that never fail, ISO-8601 times, parquet nanoseconds,
and the path of the file a row was read from."""

from pyspark.sql import Column
from pyspark.sql import functions as F


def try_cast(value: Column, type_name: str) -> Column:
    """Null when the value does not convert, whatever spark.sql.ansi.enabled says."""
    if hasattr(Column, "try_cast"):  # Spark 4
        return value.try_cast(type_name)
    return value.cast(type_name)  # Spark 3.5 runtimes: ANSI off by default

# The zone of an ISO-8601 time, after optional spaces: Z, an offset (+02, +0200, +02:00), or
# UTC / GMT / UT with an optional offset ("2026-10-01 06:00:00 UTC", "... +02:00").
ZONE_SUFFIX = r"\s*(Z|(UTC|GMT|UT)([+-][0-9]{1,2}(:?[0-9]{2})?)?|[+-][0-9]{2}(:?[0-9]{2})?)$"


def parse_utc_timestamp(text: Column) -> Column:
    """ISO-8601 text -> timestamp (UTC instant). No zone suffix means UTC; offsets convert.

    Accepts a `T` or a space between date and time, minutes without seconds, fractions, and a
    zone written as in ZONE_SUFFIX (with or without a space before it). Null when the text is
    not such a time."""
    t = F.upper(F.trim(text))
    t = F.regexp_replace(
        t, r"^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2})(?=$|\s*(Z|UTC|GMT|UT|[+-]))", "$1:00"
    )
    has_zone = t.rlike(r"[T ][0-9:.]+" + ZONE_SUFFIX)
    date_only = t.rlike(r"^\d{4}-\d{2}-\d{2}$")
    with_zone = (
        F.when(date_only, F.concat(t, F.lit("T00:00:00Z")))
        .when(has_zone, t)
        .otherwise(F.concat(t, F.lit("Z")))
    )
    return try_cast(with_zone, "timestamp")


def nanos_to_timestamp(nanos: Column) -> Column:
    """Nanoseconds since the epoch (UTC) -> timestamp, floored to Spark's microseconds.

    Exact decimal arithmetic (a double would round nanoseconds to 256); neither cast can fail:
    every bigint fits decimal(20,0), and every bigint / 1000 fits a bigint."""
    micros = F.floor(try_cast(nanos, "decimal(20,0)") / F.lit(1000))
    return F.timestamp_micros(try_cast(micros, "bigint"))


def read_file_path() -> Column:
    """The path of the file a row was read from, as the lake listing writes it: Spark's
    `_metadata.file_path` is URI-encoded, the listing's path is not ('+' stays literal)."""
    return F.expr("url_decode(regexp_replace(_metadata.file_path, '[+]', '%2B'))")
