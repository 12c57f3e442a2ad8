// What an author works on: the concepts of their papers.
// params: author = "Mingxuan Yuan" (an author as written in the records), limit = 20
// Generic concepts ("computational cost", "downstream task": Concept.generic) are left out.
MATCH (p:Paper)-[:MENTIONS]->(c:Concept)
WHERE $author IN p.authors AND NOT coalesce(c.generic, false)
RETURN c.name AS concept, c.type AS type, count(DISTINCT p) AS papers
ORDER BY papers DESC, concept
LIMIT $limit
