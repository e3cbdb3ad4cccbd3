import os
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# In-process kernels run on Triton's CPU interpreter; the mode is fixed when triton is
# first imported, so set it before anything imports triton. GPU compilation runs in a
# subprocess (see tests/compile_helper.py).
os.environ["TRITON_INTERPRET"] = "1"
os.environ.setdefault("RS2TRITON_CACHE_DIR", tempfile.mkdtemp(prefix="rs2triton-test-cache-"))
warnings.filterwarnings("ignore", message="TRITON_DEFAULT_FP_FUSION")
