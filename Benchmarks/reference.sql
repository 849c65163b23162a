-- The reference job in DuckDB: the same filters, dedupe key and order as
-- Benchmarks/pipelines/reference.yml. run.py substitutes INPUT and OUTPUT.
COPY (
  SELECT CAST(_id AS BIGINT) AS id, n AS name, country, coord.lat AS latitude, coord.lon AS longitude FROM (
    SELECT DISTINCT ON (k, country, round(coord.lat, 2), round(coord.lon, 2)) *
    FROM (
      SELECT *,
        regexp_replace(trim(name, E' \t\n\r'), '\s+', ' ', 'g') AS n,
        lower(strip_accents(regexp_replace(trim(name, E' \t\n\r'), '\s+', ' ', 'g'))) AS k
      FROM read_json('INPUT', format = 'array')
    )
    WHERE n <> '' AND coord.lat BETWEEN -90 AND 90 AND coord.lon BETWEEN -180 AND 180
    ORDER BY k, country, round(coord.lat, 2), round(coord.lon, 2), CAST(_id AS BIGINT)
  ) ORDER BY k, country, CAST(_id AS BIGINT)
) TO 'OUTPUT' (FORMAT json, ARRAY true);
