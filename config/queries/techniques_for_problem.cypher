// Which techniques and methods are used by the papers that work on problem X?
// params: problem = "model compression" (a concept key), limit = 20
MATCH (p:Paper)-[:MENTIONS]->(pr:Concept {key: $problem})
MATCH (p)-[m:MENTIONS]->(t:Concept)
WHERE t.type IN ['Technique', 'Method'] AND m.role IN ['uses', 'proposes']
RETURN t.name AS technique, t.type AS type, count(DISTINCT p) AS papers
ORDER BY papers DESC, technique
LIMIT $limit
