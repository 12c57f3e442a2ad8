// Concepts first seen in a given year (no earlier paper mentions them).
// params: year, limit
MATCH (p:Paper)-[:MENTIONS]->(c:Concept)
WHERE p.year IS NOT NULL
WITH c, min(p.year) AS first
WHERE first = $year
RETURN c.name AS concept, c.type AS type, c.paper_count AS papers
ORDER BY papers DESC, concept
LIMIT $limit
