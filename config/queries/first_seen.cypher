// Concepts first seen in a given year (no earlier paper mentions them).
// params: year = 2025, limit = 20
// Generic concepts ("computational cost", "downstream task": Concept.generic) are left out.
MATCH (p:Paper)-[:MENTIONS]->(c:Concept)
WHERE p.year IS NOT NULL AND NOT coalesce(c.generic, false)
WITH c, min(p.year) AS first
WHERE first = $year
RETURN c.name AS concept, c.type AS type, c.paper_count AS papers
ORDER BY papers DESC, concept
LIMIT $limit
