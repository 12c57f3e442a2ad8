// Papers sharing the most concepts with paper P, and which concepts (generic ones and metrics, which link no papers, left out).
// params: paper = "arxiv:2509.19855" (a paper id), limit = 20
MATCH (p:Paper {id: $paper})-[:MENTIONS]->(c:Concept)<-[:MENTIONS]-(q:Paper)
WHERE q.id <> p.id AND NOT coalesce(c.generic, false) AND coalesce(c.type, '') <> 'Metric'
WITH q, count(c) AS shared, collect(c.name) AS concepts
RETURN q.id AS paper, q.title AS title, shared, concepts
ORDER BY shared DESC, paper
LIMIT $limit
