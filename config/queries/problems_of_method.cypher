// The problems addressed by papers that use or propose a method.
// params: method = "knowledge distillation" (a concept key), limit = 20
MATCH (p:Paper)-[m:MENTIONS]->(:Concept {key: $method})
WHERE m.role IN ['uses', 'proposes']
MATCH (p)-[:MENTIONS]->(pr:Concept)
WHERE pr.type = 'Problem'
RETURN pr.name AS problem, count(DISTINCT p) AS papers
ORDER BY papers DESC, problem
LIMIT $limit
