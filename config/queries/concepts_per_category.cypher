// The concepts the papers of one subject category (arXiv's cs.CL, cs.LG, ...) mention most.
// params: arxiv_category = "" (a category such as cs.CL or cs.LG, or "" for every paper), primary_only = false (true: only the papers whose primary category it is), limit = 20
// category_papers is how many papers the category has; generic concepts are left out.
MATCH (q:Paper)
WHERE $arxiv_category = '' OR ($primary_only AND q.primary_category = $arxiv_category)
   OR (NOT $primary_only AND $arxiv_category IN q.categories)
WITH count(q) AS category_papers
MATCH (p:Paper)-[:MENTIONS]->(c:Concept)
WHERE ($arxiv_category = '' OR ($primary_only AND p.primary_category = $arxiv_category)
   OR (NOT $primary_only AND $arxiv_category IN p.categories)) AND NOT coalesce(c.generic, false)
RETURN c.name AS concept, c.type AS type, count(DISTINCT p) AS papers, category_papers
ORDER BY papers DESC, concept
LIMIT $limit
