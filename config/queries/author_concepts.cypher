// What an author works on: the concepts of their papers.
// params: author (as written in the records, e.g. "Ann Lee"), limit
MATCH (p:Paper)-[:MENTIONS]->(c:Concept)
WHERE $author IN p.authors
RETURN c.name AS concept, c.type AS type, count(DISTINCT p) AS papers
ORDER BY papers DESC, concept
LIMIT $limit
