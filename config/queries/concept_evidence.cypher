// The papers that mention a concept, with the role and the sentence that says so.
// params: concept = "speculative decoding" (a concept key), limit = 20
MATCH (p:Paper)-[m:MENTIONS]->(c:Concept {key: $concept})
RETURN p.id AS paper, p.year AS year, m.role AS role, m.text AS text, m.sentence AS evidence
ORDER BY year DESC, paper
LIMIT $limit
