# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
SCIERC ?= ../shared/data/scierc
CORPUS ?= ../shared/data/corpus/acl-anthology-abstracts.jsonl.gz
ARXIV  ?= ../shared/data/arxiv-ml/arxiv-ml-abstracts.jsonl.gz
MODEL_STAMP := $(VENV)/.installed-model

NEO4J_VERSION := $(shell sed -n 's|.*<neo4j.version>\(.*\)</neo4j.version>.*|\1|p' tools/neo4j/pom.xml)
NEO4J_JAR     := tools/neo4j/lib/neo4j-$(NEO4J_VERSION).jar

.PHONY: install run test lint format model relations-model gazetteer refdf bench chromium neo4j clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

install: $(STAMP)

## make run: set up, then run the default pipeline on the bundled sample (300 arXiv abstracts on
## training and serving large models) into out/
run: $(STAMP)
	$(BIN)/kg run pipelines/sample.toml
	@echo
	@echo "Open in a browser: out/graph.html (papers and concepts), out/concepts.html (the concept map), out/report.html"
	@echo "Try a query: what these papers pair with speculative decoding (source .venv/bin/activate to call kg alone):"
	@echo '  .venv/bin/kg query cooccurring_concepts -p concept="speculative decoding" -p limit=10'

## make test: everything the tests need (Chromium included), then the whole suite and the linters
test: $(STAMP) chromium $(NEO4J_JAR) lint
	$(BIN)/pytest

chromium:
	@command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; }

# Neo4j 5.26 from Maven Central (Java 17), no Docker: the jars go to tools/neo4j/lib (not committed)
$(NEO4J_JAR): tools/neo4j/pom.xml
	mvn -q -B -f tools/neo4j/pom.xml package

## make neo4j: a local Neo4j on bolt://localhost:7687 (user neo4j, password $$NEO4J_PASSWORD from the
## environment, kgtestpass if unset); Ctrl-C stops it. The password reaches the server through the
## environment, never a command line (which `ps` shows to everyone).
neo4j: export NEO4J_PASSWORD ?= kgtestpass
neo4j: $(NEO4J_JAR)
	tools/neo4j/start.sh --port 7687 --ignore-stdin

lint: $(STAMP)
	$(BIN)/ruff check kg tests bench
	$(BIN)/ruff format --check kg tests bench
	$(BIN)/mypy kg

format: $(STAMP)
	$(BIN)/ruff check --fix kg tests bench
	$(BIN)/ruff format kg tests bench

$(MODEL_STAMP): pyproject.toml $(STAMP)
	$(BIN)/pip install -q -e '.[model]'
	touch $@

## make model: rebuild the shipped concept model: word vectors from the ACL abstracts ($(CORPUS)),
## the tok2vec pretrained on ACL and arXiv ML abstracts in three rounds of 45,000 (kg.extract.pretrain;
## about 25 minutes a round on one thread), then the NER (config/vectors.toml, config/ner.cfg)
## cross-validated in 3 folds of SciERC train+dev to choose its step count (or the mean of a run's last
## checkpoints), and trained on all of train+dev to that step (or that mean). Two trainings at a time, one thread each (one BLAS thread: a run is then
## the same every time): 6-17 minutes a training on a busy 2-core machine, about 35 minutes for
## the four. The folds' scores go to build/cv/cv.json; to re-score the fold models after
## changing kg's components: python -m kg.extract.train --cv-score build/cv
model: $(MODEL_STAMP)
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 $(BIN)/python -m kg.extract.train --scierc $(SCIERC) \
	  --corpus $(CORPUS) --pretrain-corpus $(CORPUS) $(ARXIV) --cv 3 --work build/cv

## make relations-model: retrain the shipped relation classifier on SciERC train (about a minute)
# One BLAS thread: the matrices are small, and more threads only fight over the cores.
relations-model: $(STAMP)
	OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 $(BIN)/python -m kg.extract.train_relations --scierc $(SCIERC)

## make gazetteer: rebuild config/gazetteer.tsv from Papers with Code methods and tasks and the
## ACL and arXiv ML abstracts (about 2 minutes on one core)
gazetteer: $(STAMP)
	$(BIN)/python -m kg.normalise.gazetteer_build ../shared/data/gazetteer $(ARXIV) $(CORPUS) config/gazetteer.tsv

## make refdf: recount config/refdf.tsv.gz, the reference document frequencies of terms in the ACL
## abstracts from 2016 on (CC BY 4.0) and the arXiv ML abstracts (CC0); about 3 minutes on one core
refdf: $(STAMP)
	$(BIN)/python -m kg.normalise.refdf --out config/refdf.tsv.gz --corpus acl=$(CORPUS)@2016 --corpus arxiv=$(ARXIV) \
		--note "Corpora: ACL Anthology abstracts from 2016 on (CC BY 4.0; acl-org/acl-anthology metadata), arXiv machine-learning abstracts 2024-2026 (CC0)."

## make bench: every benchmark in bench/, each ending with one JSON line of figures
bench: $(STAMP)
	@for f in bench/*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

clean:
	rm -rf out build .pytest_cache .mypy_cache .ruff_cache
