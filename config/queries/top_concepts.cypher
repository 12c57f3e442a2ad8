// The concepts with the most papers, optionally of one type.
// params: type = "" (Method, Technique, Problem, Dataset, Metric, or "" for all), limit = 20
// Generic concepts ("computational cost", "downstream task": Concept.generic) are left out.
MATCH (c:Concept)
WHERE ($type = '' OR c.type = $type) AND NOT coalesce(c.generic, false)
RETURN c.name AS concept, c.type AS type, c.paper_count AS papers
ORDER BY papers DESC, concept
LIMIT $limit
