"""The PaddlePaddle client's Python API, as its seed writes it, on DDL.

    import paddle
    job = paddle.dist.train(job_name="quickstart", package_path="quick_start",
                            entry_point="python train.py", trainers=2, pservers=1,
                            base_image="python3", k8s_user="ada@example.org",
                            k8s_pssword="...", server="https://ddl.example.org:8443",
                            ca_cert="server.crt")
    print(job.wait())

Standard library only. This package is named paddle, as the seed's API is: do not install it
into an environment that has PaddlePaddle itself (docs/cli.md).
"""
from . import dist

__all__ = ["dist"]
