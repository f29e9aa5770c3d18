# Shared by the Python checks of the tests (tests/*/check-*.py): a field
# read through babeltrace2's Python bindings as plain Python values.
# Import with tests/ on sys.path:
#   sys.dont_write_bytecode = True
#   sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
#   from bt2values import value
import bt2


def value(f):
    """A bt2 field (or None) as None, str, int, float, list or dict;
    an enumeration as its integer, a variant as its selected option."""
    if f is None:
        return None
    if isinstance(f, bt2._StringFieldConst):
        return str(f)
    if isinstance(f, bt2._IntegerFieldConst):  # enumerations too
        return int(f)
    if isinstance(f, bt2._RealFieldConst):
        return float(f)
    if isinstance(f, bt2._ArrayFieldConst):
        return [value(x) for x in f]
    if isinstance(f, bt2._VariantFieldConst):
        return value(f.selected_option)
    if isinstance(f, bt2._StructureFieldConst):
        return {k: value(v) for k, v in f.items()}
    raise TypeError(type(f))
