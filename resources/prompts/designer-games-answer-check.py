def check_answer(given, expected, tolerance=1e-6):
    """True when the player's answer is the expected one: the same words (case and spacing
    aside), or the same number written another way (7, 7.0, 14/2, 1,000 = 1000)."""
    a = " ".join(str(given).lower().split())
    b = " ".join(str(expected).lower().split())
    if a == b:
        return True
    try:
        return abs(Fraction(a.replace(",", "")) - Fraction(b.replace(",", ""))) <= tolerance
    except (ValueError, ZeroDivisionError):
        return False
