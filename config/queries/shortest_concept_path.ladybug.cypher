// The shortest chain of co-occurring concepts between two concepts (LadybugDB dialect).
// params: source = "model merging", target = "speculative decoding" (concept keys)
MATCH path = (a:Concept)-[:CO_OCCURS* SHORTEST 1..8]-(b:Concept)
WHERE a.key = $source AND b.key = $target
RETURN properties(nodes(path), 'name') AS concepts, length(path) AS hops
