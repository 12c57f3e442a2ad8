// The kinds of a concept that abstracts name ("X such as A", "A is a X"), with the evidence sentence.
// params: category = "large language model" (a concept key), limit = 20
MATCH (k:Concept)-[r:HYPONYM_OF]->(c:Concept {key: $category})
RETURN k.name AS kind, k.type AS type, r.n_papers AS papers, r.paper AS paper, r.sentence AS evidence
ORDER BY papers DESC, kind
LIMIT $limit
