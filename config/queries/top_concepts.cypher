// The concepts with the most papers, optionally of one type.
// params: type (Method, Technique, Problem, or "" for all), limit
MATCH (c:Concept)
WHERE $type = '' OR c.type = $type
RETURN c.name AS concept, c.type AS type, c.paper_count AS papers
ORDER BY papers DESC, concept
LIMIT $limit
