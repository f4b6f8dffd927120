// Encoding VTA instructions and micro-ops to their hardware words (layout in vta_isa.hpp).
#include "sim/vta_isa.hpp"

#include <sstream>

#include "ir/error.hpp"

namespace attune {

namespace {

constexpr int kOpcodeBits = 3;
constexpr int kMemTypeBits = 3;
constexpr int kSramBits = 16, kDramBits = 32, kSizeBits = 16, kStrideBits = 16, kPadBits = 4;
constexpr int kUopBgnBits = 13, kUopEndBits = 14, kIterBits = 14;
constexpr int kAccIdxBits = 11, kInpIdxBits = 11, kWgtIdxBits = 10;
constexpr int kAluOpBits = 3, kImmBits = 16;

// Lays fields out from bit 0 of word 0 upwards; remembers the first one that does not fit.
class Packer {
 public:
  void put(std::uint64_t v, int width, const char* name) {
    if (!err_ && (v >> width) != 0) {
      std::ostringstream os;
      os << name << "=" << v << " exceeds its " << width << "-bit field";
      err_ = os.str();
    }
    place(v & mask(width), width);
  }
  void put_signed(std::int64_t v, int width, const char* name) {
    const std::int64_t lo = -(std::int64_t(1) << (width - 1)), hi = -lo - 1;
    if (!err_ && (v < lo || v > hi)) {
      std::ostringstream os;
      os << name << "=" << v << " is outside the signed " << width << "-bit range [" << lo << ", " << hi << "]";
      err_ = os.str();
    }
    place(static_cast<std::uint64_t>(v) & mask(width), width);
  }
  void skip_to(int bit) { pos_ = bit; }
  void fail(std::string why) {
    if (!err_) err_ = std::move(why);
  }
  const std::optional<std::string>& error() const { return err_; }
  const VtaInsnWords& words() const { return w_; }

 private:
  static std::uint64_t mask(int width) { return width >= 64 ? ~0ull : (1ull << width) - 1; }
  // Fields never straddle the two words in this layout.
  void place(std::uint64_t v, int width) {
    w_[pos_ / 64] |= v << (pos_ % 64);
    pos_ += width;
  }
  VtaInsnWords w_{};
  int pos_ = 0;
  std::optional<std::string> err_;
};

class Unpacker {
 public:
  explicit Unpacker(const VtaInsnWords& w) : w_(w) {}
  std::uint64_t get(int width) {
    std::uint64_t v = (w_[pos_ / 64] >> (pos_ % 64)) & ((1ull << width) - 1);
    pos_ += width;
    return v;
  }
  std::int32_t get_signed(int width) {
    std::uint64_t v = get(width);
    const std::uint64_t sign = 1ull << (width - 1);
    return static_cast<std::int32_t>(static_cast<std::int64_t>(v ^ sign) - static_cast<std::int64_t>(sign));
  }
  void skip_to(int bit) { pos_ = bit; }

 private:
  const VtaInsnWords& w_;
  int pos_ = 0;
};

Packer pack(const VtaInsn& in) {
  Packer p;
  const auto op = static_cast<unsigned>(in.opcode);
  if (op >= kVtaNumOpcodes) p.fail("opcode=" + std::to_string(op) + " is not a VTA opcode");
  p.put(op, kOpcodeBits, "opcode");
  p.put(in.deps.pop_prev, 1, "pop_prev");
  p.put(in.deps.pop_next, 1, "pop_next");
  p.put(in.deps.push_prev, 1, "push_prev");
  p.put(in.deps.push_next, 1, "push_next");
  if (in.opcode == VtaOpcode::load || in.opcode == VtaOpcode::store) {
    const auto mem = static_cast<unsigned>(in.mem);
    if (mem >= kVtaNumMemTypes) p.fail("memory_type=" + std::to_string(mem) + " is not a VTA memory type");
    p.put(mem, kMemTypeBits, "memory_type");
    p.put(in.sram_base, kSramBits, "sram_base");
    p.put(in.dram_base, kDramBits, "dram_base");
    p.skip_to(64);
    p.put(in.y_size, kSizeBits, "y_size");
    p.put(in.x_size, kSizeBits, "x_size");
    p.put(in.x_stride, kStrideBits, "x_stride");
    p.put(in.y_pad_0, kPadBits, "y_pad_0");
    p.put(in.y_pad_1, kPadBits, "y_pad_1");
    p.put(in.x_pad_0, kPadBits, "x_pad_0");
    p.put(in.x_pad_1, kPadBits, "x_pad_1");
  } else if (in.opcode == VtaOpcode::gemm || in.opcode == VtaOpcode::alu) {
    p.put(in.reset, 1, "reset");
    p.put(in.uop_bgn, kUopBgnBits, "uop_bgn");
    p.put(in.uop_end, kUopEndBits, "uop_end");
    p.put(in.iter_out, kIterBits, "iter_out");
    p.put(in.iter_in, kIterBits, "iter_in");
    p.skip_to(64);
    p.put(in.dst_factor_out, kAccIdxBits, "dst_factor_out");
    p.put(in.dst_factor_in, kAccIdxBits, "dst_factor_in");
    // ALU sources are accumulator entries, GEMM sources input entries: same width here.
    p.put(in.src_factor_out, kInpIdxBits, "src_factor_out");
    p.put(in.src_factor_in, kInpIdxBits, "src_factor_in");
    if (in.opcode == VtaOpcode::gemm) {
      p.put(in.wgt_factor_out, kWgtIdxBits, "wgt_factor_out");
      p.put(in.wgt_factor_in, kWgtIdxBits, "wgt_factor_in");
    } else {
      const auto aop = static_cast<unsigned>(in.alu_op);
      if (aop > static_cast<unsigned>(VtaAluOp::mul))
        p.fail("alu_opcode=" + std::to_string(aop) + " is not a VTA ALU opcode");
      p.put(aop, kAluOpBits, "alu_opcode");
      p.put(in.use_imm, 1, "use_imm");
      p.put_signed(in.imm, kImmBits, "imm");
    }
  }
  return p;
}

}  // namespace

std::optional<std::string> vta_encoding_error(const VtaInsn& insn) { return pack(insn).error(); }

std::optional<std::string> vta_encoding_error(const VtaUop& u) {
  Packer p;
  p.put(u.dst_idx, kAccIdxBits, "uop dst_idx");
  p.put(u.src_idx, kInpIdxBits, "uop src_idx");
  p.put(u.wgt_idx, kWgtIdxBits, "uop wgt_idx");
  return p.error();
}

VtaInsnWords encode_insn(const VtaInsn& insn) {
  Packer p = pack(insn);
  if (p.error()) throw Error("cannot encode " + std::string(vta_opcode_name(insn.opcode)) + ": " + *p.error());
  return p.words();
}

std::uint32_t encode_uop(const VtaUop& u) {
  if (auto err = vta_encoding_error(u)) throw Error("cannot encode micro-op: " + *err);
  return u.dst_idx | (u.src_idx << kAccIdxBits) | (u.wgt_idx << (kAccIdxBits + kInpIdxBits));
}

VtaUop decode_uop(std::uint32_t w) {
  VtaUop u;
  u.dst_idx = w & ((1u << kAccIdxBits) - 1);
  u.src_idx = (w >> kAccIdxBits) & ((1u << kInpIdxBits) - 1);
  u.wgt_idx = w >> (kAccIdxBits + kInpIdxBits);
  return u;
}

VtaInsn decode_insn(const VtaInsnWords& words) {
  Unpacker u(words);
  VtaInsn in;
  const auto op = u.get(kOpcodeBits);
  if (op >= kVtaNumOpcodes)
    throw Error("cannot decode instruction: opcode " + std::to_string(op) + " is not a VTA opcode");
  in.opcode = static_cast<VtaOpcode>(op);
  in.deps.pop_prev = u.get(1);
  in.deps.pop_next = u.get(1);
  in.deps.push_prev = u.get(1);
  in.deps.push_next = u.get(1);
  if (in.opcode == VtaOpcode::load || in.opcode == VtaOpcode::store) {
    const auto mem = u.get(kMemTypeBits);
    if (mem >= kVtaNumMemTypes)
      throw Error("cannot decode instruction: memory type " + std::to_string(mem) + " is not a VTA memory type");
    in.mem = static_cast<VtaMemType>(mem);
    in.sram_base = std::uint32_t(u.get(kSramBits));
    in.dram_base = std::uint32_t(u.get(kDramBits));
    u.skip_to(64);
    in.y_size = std::uint32_t(u.get(kSizeBits));
    in.x_size = std::uint32_t(u.get(kSizeBits));
    in.x_stride = std::uint32_t(u.get(kStrideBits));
    in.y_pad_0 = std::uint32_t(u.get(kPadBits));
    in.y_pad_1 = std::uint32_t(u.get(kPadBits));
    in.x_pad_0 = std::uint32_t(u.get(kPadBits));
    in.x_pad_1 = std::uint32_t(u.get(kPadBits));
  } else if (in.opcode == VtaOpcode::gemm || in.opcode == VtaOpcode::alu) {
    in.reset = u.get(1);
    in.uop_bgn = std::uint32_t(u.get(kUopBgnBits));
    in.uop_end = std::uint32_t(u.get(kUopEndBits));
    in.iter_out = std::uint32_t(u.get(kIterBits));
    in.iter_in = std::uint32_t(u.get(kIterBits));
    u.skip_to(64);
    in.dst_factor_out = std::uint32_t(u.get(kAccIdxBits));
    in.dst_factor_in = std::uint32_t(u.get(kAccIdxBits));
    in.src_factor_out = std::uint32_t(u.get(kInpIdxBits));
    in.src_factor_in = std::uint32_t(u.get(kInpIdxBits));
    if (in.opcode == VtaOpcode::gemm) {
      in.wgt_factor_out = std::uint32_t(u.get(kWgtIdxBits));
      in.wgt_factor_in = std::uint32_t(u.get(kWgtIdxBits));
    } else {
      const auto aop = u.get(kAluOpBits);
      if (aop > static_cast<unsigned>(VtaAluOp::mul))
        throw Error("cannot decode instruction: ALU opcode " + std::to_string(aop) + " is not a VTA ALU opcode");
      in.alu_op = static_cast<VtaAluOp>(aop);
      in.use_imm = u.get(1);
      in.imm = u.get_signed(kImmBits);
    }
  }
  return in;
}

std::string_view vta_opcode_name(VtaOpcode op) {
  switch (op) {
    case VtaOpcode::load: return "LOAD";
    case VtaOpcode::store: return "STORE";
    case VtaOpcode::gemm: return "GEMM";
    case VtaOpcode::finish: return "FINISH";
    case VtaOpcode::alu: return "ALU";
  }
  return "?";
}

std::string_view vta_mem_name(VtaMemType m) {
  switch (m) {
    case VtaMemType::uop: return "uop";
    case VtaMemType::wgt: return "wgt";
    case VtaMemType::inp: return "inp";
    case VtaMemType::acc: return "acc";
    case VtaMemType::out: return "out";
  }
  return "?";
}

std::string_view vta_alu_name(VtaAluOp op) {
  switch (op) {
    case VtaAluOp::min: return "min";
    case VtaAluOp::max: return "max";
    case VtaAluOp::add: return "add";
    case VtaAluOp::shr: return "shr";
    case VtaAluOp::mul: return "mul";
  }
  return "?";
}

}  // namespace attune
