"""Regenerate pp_corr/data/sklearn_cv.csv, the embedded example of `pp-corr demo`.

Real cross-validation results: four scikit-learn classifiers on the four classification data sets
that scikit-learn bundles, 10 runs of stratified 10-fold cross-validation (the same folds for every
classifier within a run), accuracy per fold. Needs the `examples` extra (scikit-learn).

    python scripts/make_example_data.py
"""
from pathlib import Path

import pandas as pd
from sklearn import datasets
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

RUNS, FOLDS = 10, 10
DATASETS = {"iris": datasets.load_iris, "wine": datasets.load_wine,
            "breast_cancer": datasets.load_breast_cancer, "digits": datasets.load_digits}
CLASSIFIERS = {
    "naive_bayes": lambda seed: GaussianNB(),
    "logistic": lambda seed: make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)),
    "tree": lambda seed: DecisionTreeClassifier(random_state=seed),
    "knn": lambda seed: make_pipeline(StandardScaler(), KNeighborsClassifier()),
}


def main(out=Path(__file__).resolve().parents[1] / "pp_corr" / "data" / "sklearn_cv.csv"):
    rows = []
    for name, load in DATASETS.items():
        X, y = load(return_X_y=True)
        for run in range(RUNS):
            folds = StratifiedKFold(FOLDS, shuffle=True, random_state=run).split(X, y)
            for fold, (train, test) in enumerate(folds):
                for algo, make in CLASSIFIERS.items():
                    model = make(run).fit(X[train], y[train])
                    rows.append({"dataset": name, "algorithm": algo, "run": run + 1, "fold": fold + 1,
                                 "score": model.score(X[test], y[test]),
                                 "n_test": len(test), "n_train": len(train)})
    pd.DataFrame(rows).to_csv(out, index=False, float_format="%.10g")
    print(f"wrote {len(rows)} rows to {out}")


if __name__ == "__main__":
    main()
