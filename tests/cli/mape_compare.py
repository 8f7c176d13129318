"""Per-category MAPE of two predictions of the same rows, for the validate tests."""


def categories_not_better(errors, ours, theirs, rows="rows"):
    """errors: {category: [(|our error|, |their error|), ...]}. Prints each category's two MAPEs and returns
    the categories where ours is not the lower."""
    worse = []
    for category, pairs in sorted(errors.items()):
        mine, base = (sum(p[i] for p in pairs) / len(pairs) for i in (0, 1))
        print(f"{category}: {len(pairs)} {rows}, MAPE {ours} {mine:.1%}, {theirs} {base:.1%}")
        if not mine < base:
            worse.append(category)
    return worse
