#!/usr/bin/env python3
"""The nearest-city join of `make bench` in Python with scipy's cKDTree, the way one would
write it by hand: load both JSON files, keep cities whose coordinates are numbers on the
globe, put every point on the unit sphere, build the tree, query the nearest city of every
place, and write NDJSON lines {"id", "cityId", "km"} (great-circle km on a sphere of
radius 6371.0088 km, from the angle between the vectors), in the places' order.

Usage: kdtree_nearest.py PLACES.json CITIES.json OUT.ndjson
"""
import json
import sys

import numpy as np
from scipy.spatial import cKDTree

RADIUS_KM = 6371.0088


def usable(value, limit):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and -limit <= value <= limit


def unit_vectors(lat, lon):
    phi, lam = np.radians(lat), np.radians(lon)
    return np.column_stack((np.cos(phi) * np.cos(lam), np.cos(phi) * np.sin(lam), np.sin(phi)))


def main(places_path, cities_path, out_path):
    with open(places_path, encoding="utf-8") as f:
        places = json.load(f)
    with open(cities_path, encoding="utf-8") as f:
        cities = json.load(f)
    kept = [c for c in cities if isinstance(c.get("coord"), dict)
            and usable(c["coord"].get("lat"), 90) and usable(c["coord"].get("lon"), 180)]
    ids = [c["_id"] for c in kept]
    tree = cKDTree(unit_vectors(np.array([c["coord"]["lat"] for c in kept], dtype=float),
                                np.array([c["coord"]["lon"] for c in kept], dtype=float)))
    queries = unit_vectors(np.array([p["latitude"] for p in places], dtype=float),
                           np.array([p["longitude"] for p in places], dtype=float))
    _, nearest = tree.query(queries, k=1)
    # The angle between the vectors as atan2(|p x q|, p . q), accurate at any distance.
    found = tree.data[nearest]
    km = RADIUS_KM * np.arctan2(np.linalg.norm(np.cross(found, queries), axis=1), np.einsum("ij,ij->i", found, queries))
    with open(out_path, "w", encoding="utf-8") as out:
        for place, index, distance in zip(places, nearest.tolist(), km.tolist()):
            out.write(json.dumps({"id": place["id"], "cityId": ids[index], "km": round(distance, 6)}) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:4])
