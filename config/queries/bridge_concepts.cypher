// Concepts that bridge two communities: mentioned by papers of both venues.
// params: venue_a = "arXiv", venue_b = "arXiv" (venues as written in the records; the default sample has only arXiv), limit = 20
// Generic concepts ("computational cost", "downstream task": Concept.generic) are left out.
MATCH (a:Paper)-[:MENTIONS]->(c:Concept)<-[:MENTIONS]-(b:Paper)
WHERE a.venue = $venue_a AND b.venue = $venue_b AND NOT coalesce(c.generic, false)
RETURN c.name AS concept, c.type AS type, count(DISTINCT a.id) AS papers_a, count(DISTINCT b.id) AS papers_b
ORDER BY papers_a + papers_b DESC, concept
LIMIT $limit
