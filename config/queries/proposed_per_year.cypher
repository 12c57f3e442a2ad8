// How many concepts of a type the papers of each year propose.
// params: type = "Method" (Method, Technique, Problem, Dataset or Metric)
MATCH (p:Paper)-[m:MENTIONS]->(c:Concept)
WHERE m.role = 'proposes' AND c.type = $type AND p.year IS NOT NULL
RETURN p.year AS year, count(DISTINCT c.key) AS proposed, count(DISTINCT p.id) AS papers
ORDER BY year
