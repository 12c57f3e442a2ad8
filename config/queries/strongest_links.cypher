// The strongest paper-paper links: papers that share rare concepts.
// params: limit = 20
MATCH (p:Paper)-[s:SHARES_CONCEPTS]->(q:Paper)
RETURN p.id AS paper_a, q.id AS paper_b, s.weight AS weight, s.shared AS shared
ORDER BY weight DESC, paper_a, paper_b
LIMIT $limit
