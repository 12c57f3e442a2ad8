// The most central concepts of a type in the co-occurrence graph (PageRank), with their community.
// params: type = "" (Method, Technique, Problem, Dataset, Metric, or "" for all), limit = 20
// Generic concepts ("computational cost", "downstream task": Concept.generic) are left out.
MATCH (c:Concept)
WHERE ($type = '' OR c.type = $type) AND c.pagerank IS NOT NULL AND NOT coalesce(c.generic, false)
RETURN c.name AS concept, c.type AS type, c.pagerank AS pagerank, c.degree AS degree, c.community AS community
ORDER BY pagerank DESC, concept
LIMIT $limit
