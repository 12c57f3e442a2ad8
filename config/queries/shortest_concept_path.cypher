// The shortest chain of co-occurring concepts between two concepts.
// params: source = "model merging", target = "speculative decoding" (concept keys)
MATCH (a:Concept {key: $source}), (b:Concept {key: $target})
MATCH path = shortestPath((a)-[:CO_OCCURS*..8]-(b))
RETURN [n IN nodes(path) | n.name] AS concepts, length(path) AS hops
