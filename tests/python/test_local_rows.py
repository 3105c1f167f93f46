"""Driver-side rows as a DataFrame through Arrow (`local_rows.local_frame`): the same rows as
`createDataFrame` of the list gives, and no Python RDD behind them."""

from datetime import UTC, datetime

from pyspark.sql import types as T

from sync_logs.canonical.local_rows import local_frame
from sync_logs.canonical.manifest import FOLDER_TYPE

FILE = T.StructType([T.StructField("path", T.StringType(), False),
                     T.StructField("length", T.LongType())])
NESTED = T.StructType([
    T.StructField("key", T.StringType(), False),
    T.StructField("flag", T.BooleanType()),
    T.StructField("count", T.IntegerType()),
    T.StructField("files", T.ArrayType(FILE, containsNull=False)),
])
NESTED_ROWS = [
    ("a", True, 1, [("a/1.parquet", 10), ("a/2.parquet", None)]),
    ("b", None, None, []),
    ("c", False, -2, None),
]


def lineage(frame) -> str:
    return frame._jdf.queryExecution().toRdd().toDebugString()


def test_rows_come_back_as_a_list_of_them_gives(spark):
    frame = local_frame(spark, NESTED_ROWS, NESTED)
    assert frame.schema == spark.createDataFrame(NESTED_ROWS, NESTED).schema
    assert sorted(frame.collect()) == sorted(spark.createDataFrame(NESTED_ROWS, NESTED).collect())


def test_a_ddl_schema_and_no_rows(spark):
    frame = local_frame(spark, [], "sync_id bigint, name string, is_valid boolean")
    assert [(field.name, field.dataType) for field in frame.schema.fields] == [
        ("sync_id", T.LongType()), ("name", T.StringType()), ("is_valid", T.BooleanType())]
    assert frame.count() == 0
    assert local_frame(spark, [], FOLDER_TYPE).count() == 0


def test_timestamps_are_instants(spark):
    moment = datetime(2026, 10, 1, 6, 30, tzinfo=UTC)
    frame = local_frame(spark, [(moment,), (None,)], "at timestamp")
    assert frame.schema["at"].dataType == T.TimestampType()
    assert frame.selectExpr("unix_micros(at)").collect() == [
        (int(moment.timestamp()) * 1_000_000,), (None,)]
    assert local_frame(spark, [], "at timestamp, n bigint").count() == 0


def test_no_python_rdd_behind_the_frame(spark):
    assert "Python" not in lineage(local_frame(spark, NESTED_ROWS, NESTED))
    # the check can fail: a list's frame has one
    assert "Python" in lineage(spark.createDataFrame(NESTED_ROWS, NESTED))
