"""Newton's method on the Rosenbrock function, written as a loop, with transpyle.grad and
transpyle.hessian (forward over reverse).

    python examples/newton_hessian.py
"""
import numpy as np

import transpyle


def rosenbrock(x):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2
    return s


def main():
    grad = transpyle.grad(rosenbrock)
    hess = transpyle.hessian(rosenbrock)
    x = np.array([1.3, 0.7, 0.8, 1.9])
    for step in range(30):
        g = grad(x)
        if np.linalg.norm(g) < 1e-10:
            break
        x = x - np.linalg.solve(hess(x) + 1e-9 * np.eye(x.size), g)
        print(f"step {step:2d}: f = {rosenbrock(x):.3e}, |grad| = {np.linalg.norm(grad(x)):.2e}")
    print("minimum at", np.round(x, 6))
    return x


if __name__ == "__main__":
    main()
