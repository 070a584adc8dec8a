// JavaStringHashCode, JavaStringFromUtf8; see java_string.h.
#include "base/java_string.h"

namespace seglog {

namespace {

constexpr uint16_t kReplacement = 0xFFFD;

bool IsNotContinuation(int b) { return (b & 0xC0) != 0x80; }

// Java's UTF-8 decoding (JDK 17's String(byte[], UTF_8)), code unit by code unit: its rules
// for how many bytes of an ill-formed sequence one U+FFFD replaces, and a truncated sequence
// at the end becoming one U+FFFD for all of it.
template <typename Emit>
void DecodeLikeJava(std::string_view s, Emit emit) {
  const auto at = [&](size_t i) { return static_cast<int>(static_cast<int8_t>(s[i])); };
  const size_t n = s.size();
  size_t sp = 0;
  while (sp < n) {
    const int b1 = at(sp++);
    if (b1 >= 0) {
      emit(static_cast<uint16_t>(b1));
    } else if ((b1 >> 5) == -2 && (b1 & 0x1E) != 0) {  // C2..DF: two bytes
      if (sp >= n) {
        emit(kReplacement);
        return;
      }
      const int b2 = at(sp++);
      if (IsNotContinuation(b2)) {
        emit(kReplacement);
        --sp;  // b2 starts anew
      } else {
        emit(static_cast<uint16_t>(((b1 & 0x1F) << 6) | (b2 & 0x3F)));
      }
    } else if ((b1 >> 4) == -2) {  // E0..EF: three bytes
      if (sp + 1 < n) {
        const int b2 = at(sp);
        const int b3 = at(sp + 1);
        const bool overlong = b1 == static_cast<int8_t>(0xE0) && (b2 & 0xE0) == 0x80;
        if (overlong || IsNotContinuation(b2) || IsNotContinuation(b3)) {
          emit(kReplacement);
          sp += (overlong || IsNotContinuation(b2)) ? 0 : 1;  // malformed3: 1 or 2 bytes
          continue;
        }
        sp += 2;
        const uint16_t c =
            static_cast<uint16_t>(((b1 & 0x0F) << 12) | ((b2 & 0x3F) << 6) | (b3 & 0x3F));
        emit(c >= 0xD800 && c <= 0xDFFF ? kReplacement : c);  // an encoded surrogate: all 3
        continue;
      }
      if (sp < n) {
        const int b2 = at(sp);
        if ((b1 == static_cast<int8_t>(0xE0) && (b2 & 0xE0) == 0x80) || IsNotContinuation(b2)) {
          emit(kReplacement);
          continue;
        }
      }
      emit(kReplacement);
      return;
    } else if ((b1 >> 3) == -2) {  // F0..F7: four bytes
      const int u1 = b1 & 0xFF;
      if (sp + 2 < n) {
        const int b2 = at(sp);
        const int b3 = at(sp + 1);
        const int b4 = at(sp + 2);
        const uint32_t uc =
            (static_cast<uint32_t>(u1 & 0x07) << 18) | (static_cast<uint32_t>(b2 & 0x3F) << 12) |
            (static_cast<uint32_t>(b3 & 0x3F) << 6) | static_cast<uint32_t>(b4 & 0x3F);
        if (IsNotContinuation(b2) || IsNotContinuation(b3) || IsNotContinuation(b4) ||
            uc < 0x10000 || uc > 0x10FFFF) {
          emit(kReplacement);
          const int u2 = b2 & 0xFF;
          // malformed4: how many bytes the replacement stands for.
          if (u1 > 0xF4 || (u1 == 0xF0 && (u2 < 0x90 || u2 > 0xBF)) ||
              (u1 == 0xF4 && (u2 & 0xF0) != 0x80) || IsNotContinuation(b2)) {
            // just b1
          } else if (IsNotContinuation(b3)) {
            sp += 1;
          } else {
            sp += 2;
          }
          continue;
        }
        sp += 3;
        const uint32_t v = uc - 0x10000;
        emit(static_cast<uint16_t>(0xD800 + (v >> 10)));
        emit(static_cast<uint16_t>(0xDC00 + (v & 0x3FF)));
        continue;
      }
      if (u1 > 0xF4) {
        emit(kReplacement);
        continue;
      }
      if (sp < n) {
        const int u2 = at(sp) & 0xFF;
        if ((u1 == 0xF0 && (u2 < 0x90 || u2 > 0xBF)) || (u1 == 0xF4 && (u2 & 0xF0) != 0x80) ||
            IsNotContinuation(u2)) {
          emit(kReplacement);
          continue;
        }
      }
      ++sp;
      if (sp < n && IsNotContinuation(at(sp))) {
        emit(kReplacement);
        continue;
      }
      emit(kReplacement);
      return;
    } else {
      emit(kReplacement);  // a continuation byte, C0/C1 or F8..FF
    }
  }
}

}  // namespace

int32_t JavaStringHashCode(std::string_view utf8) {
  uint32_t h = 0;  // Java's int arithmetic wraps: computed unsigned, read back as int32
  DecodeLikeJava(utf8, [&h](uint16_t unit) { h = 31 * h + unit; });
  return static_cast<int32_t>(h);
}

std::u16string JavaStringFromUtf8(std::string_view utf8) {
  std::u16string out;
  out.reserve(utf8.size());
  DecodeLikeJava(utf8, [&out](uint16_t unit) { out.push_back(static_cast<char16_t>(unit)); });
  return out;
}

size_t JavaStringLength(std::string_view utf8) {
  size_t n = 0;
  DecodeLikeJava(utf8, [&n](uint16_t) { ++n; });
  return n;
}

}  // namespace seglog
