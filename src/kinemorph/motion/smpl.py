"""placeholder"""
def is_smpl_file(p): return False
