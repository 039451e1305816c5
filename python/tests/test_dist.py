"""paddle.dist without a server: argument checks, the package's bytes, Paddle's role commands.

tests/e2e/tst_e2e_seedjobs.cpp (pythonDistTrain) submits with it to a real server.
"""
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import paddle  # noqa: E402
from paddle import _archive, dist  # noqa: E402


class ArgumentTests(unittest.TestCase):
    def test_memory_and_cpus(self):
        self.assertEqual(dist._memory_mb("2Gi", "trainer_mem"), 2048)
        self.assertEqual(dist._memory_mb("512Mi", "trainer_mem"), 512)
        self.assertEqual(dist._memory_mb("1G", "trainer_mem"), 954)
        self.assertEqual(dist._cpus("500m", "trainer_cpu"), 1)
        self.assertEqual(dist._cpus(2, "trainer_cpu"), 2)
        self.assertEqual(dist._cpus(1.5, "trainer_cpu"), 2)
        with self.assertRaisesRegex(ValueError, r"trainer_mem='512' is not valid: expected a "
                                                r"memory size with a unit"):
            dist._memory_mb("512", "trainer_mem")
        with self.assertRaisesRegex(ValueError, r"pserver_cpu='0' is not valid"):
            dist._cpus("0", "pserver_cpu")

    def test_train_refuses_bad_arguments_before_any_request(self):
        folder = os.path.dirname(os.path.abspath(__file__))
        common = dict(package_path=folder, entry_point="python3 x.py", base_image="python3",
                      server="https://127.0.0.1:9", k8s_user="a@b.c", k8s_pssword="pw")
        cases = [
            (dict(trainers=0), r"trainers=0 is not valid"),
            (dict(pservers=-1), r"pservers=-1 is not valid"),
            (dict(trainers=True), r"trainers=True is not valid"),
            (dict(module="m"), r"either entry_point=.* or module="),
            (dict(base_image=""), r"base_image is missing"),
            (dict(use_gpu=True, trainer_gpu=0), r"disagree"),
            (dict(env={"1X": "y"}), r"env key '1X'"),
            (dict(trainer_mem="lots"), r"trainer_mem='lots' is not valid"),
            (dict(input="./no/such/folder"), r"input='./no/such/folder': expected a folder"),
            (dict(package_path="/nonexistent/x"), r"package_path='/nonexistent/x' is not a folder"),
        ]
        for extra, message in cases:
            with self.subTest(extra=extra):
                with self.assertRaisesRegex(ValueError, message):
                    paddle.dist.train(**{**common, **extra})

    def test_http_server_refused(self):
        folder = os.path.dirname(os.path.abspath(__file__))
        with self.assertRaises(paddle.dist.DdlError) as raised:
            paddle.dist.train(package_path=folder, entry_point="x", base_image="i",
                              server="http://127.0.0.1:9", k8s_user="a@b.c", k8s_pssword="pw")
        self.assertIn("speak HTTPS only", raised.exception.message)

    def test_role_commands_carry_paddles_environment(self):
        trainer = dist._role_command("trainer", 4, 2, "python train.py")
        self.assertIn("PADDLE_TRAINING_ROLE=TRAINER", trainer)
        self.assertIn('PADDLE_PSERVER_ENDPOINTS="$PAI_TASK_ROLE_0_HOST_LIST"', trainer)
        self.assertIn('PADDLE_TRAINER_ID="$PAI_TASK_ROLE_INDEX"', trainer)
        self.assertTrue(trainer.endswith("; python train.py"))
        pserver = dist._role_command("pserver", 4, 2, "python ps.py")
        self.assertIn("PADDLE_TRAINING_ROLE=PSERVER", pserver)
        self.assertNotIn("PADDLE_TRAINER_ID", pserver)


class ArchiveTests(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        os.makedirs(os.path.join(self.folder, "pkg", "__pycache__"))
        os.makedirs(os.path.join(self.folder, ".git"))
        with open(os.path.join(self.folder, "train.py"), "w") as f:
            f.write("print('train')\n")
        with open(os.path.join(self.folder, "pkg", "big.bin"), "wb") as f:
            f.write(os.urandom(300 * 1024))  # three raw blocks
        with open(os.path.join(self.folder, "pkg", "__pycache__", "x.pyc"), "wb") as f:
            f.write(b"cache")
        with open(os.path.join(self.folder, ".git", "HEAD"), "w") as f:
            f.write("ref\n")

    def tearDown(self):
        shutil.rmtree(self.folder)

    def test_package_is_reproducible_and_leaves_out_caches(self):
        first, sha, files, warnings = _archive.pack_folder(self.folder)
        self.assertEqual(files, 2)
        self.assertEqual(warnings, [])
        self.assertEqual(sha, hashlib.sha256(first).hexdigest())
        os.utime(os.path.join(self.folder, "train.py"), (1, 1))
        with open(os.path.join(self.folder, ".git", "HEAD"), "w") as f:
            f.write("other\n")
        self.assertEqual(_archive.pack_folder(self.folder)[1], sha)

    @unittest.skipUnless(shutil.which("zstd"), "needs the zstd program to read the frame back")
    def test_zstd_frame_reads_back(self):
        data, _, _, _ = _archive.pack_folder(self.folder)
        tar_bytes = subprocess.run(["zstd", "-dc"], input=data, stdout=subprocess.PIPE,
                                   check=True).stdout
        with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as tar:
            names = sorted(tar.getnames())
            self.assertEqual(names, ["pkg", "pkg/big.bin", "train.py"])
            with open(os.path.join(self.folder, "pkg", "big.bin"), "rb") as f:
                self.assertEqual(tar.extractfile("pkg/big.bin").read(), f.read())
            self.assertTrue(all(member.mtime == 0 and member.uid == 0 for member in tar))
        empty = subprocess.run(["zstd", "-dc"], input=_archive.zstd_frame(b""),
                               stdout=subprocess.PIPE, check=True).stdout
        self.assertEqual(empty, b"")


if __name__ == "__main__":
    unittest.main()
