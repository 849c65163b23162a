# The reference job in jq (1.6): trim and collapse names, drop blank names and
# out-of-range coordinates, keep the lowest id per (folded name, country, coordinates
# rounded to 2 decimals), sort by folded name, country, id.
# jq cannot fold Unicode itself: run.py passes a table ($fold[0]) mapping each non-ASCII
# character of the dump to its folded form, computed independently with Python's
# unicodedata (NFKD, combining marks dropped, casefold, and the README's extra letters).
def key: (.name | gsub("(?<c>[^\\u0000-\\u007f])"; $fold[0][.c] // .c) | ascii_downcase);
def r2: (. * 100 | if . < 0 then -((-.) + 0.5 | floor) else (. + 0.5 | floor) end) / 100;
[ .[]
  | .name |= (gsub("^\\s+|\\s+$"; "") | gsub("\\s+"; " "))
  | select(.name != "" and .coord.lat >= -90 and .coord.lat <= 90 and .coord.lon >= -180 and .coord.lon <= 180)
  | ._id |= floor
  | .k = [key, .country, (.coord.lat | r2), (.coord.lon | r2)] ]
| sort_by([.k, ._id])
| [ group_by(.k)[] | .[0] ]
| sort_by([.k[0], .country, ._id])
| map({id: ._id, name, country, latitude: .coord.lat, longitude: .coord.lon})
