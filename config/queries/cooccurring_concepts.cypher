// The concepts that appear most often together with concept X.
// params: concept = "key value cache" (a concept key), limit = 20
MATCH (c:Concept {key: $concept})-[r:CO_OCCURS]-(o:Concept)
RETURN o.name AS concept, o.type AS type, r.weight AS papers
ORDER BY papers DESC, concept
LIMIT $limit
