(module
  (import "env" "memory" (memory 1))
  ;; out[j] = f32(b[j] + sum_i x[i] W[i n + j]) for j < n, accumulated in f64 eight input rows at a time
  ;; (the summation order of denseForward in expert.ts, so results are bit-identical).
  (func (export "dense")
    (param $w i32) (param $b i32) (param $x i32) (param $out i32) (param $acc i32) (param $in i32) (param $n i32)
    (local $i i32) (local $j i32) (local $row i32) (local $stride i32) (local $a i32) (local $p i32)
    (local $x0 f64) (local $x1 f64) (local $x2 f64) (local $x3 f64)
    (local $x4 f64) (local $x5 f64) (local $x6 f64) (local $x7 f64)
    (local.set $stride (i32.shl (local.get $n) (i32.const 2)))
    ;; acc[j] = b[j]
    (local.set $j (i32.const 0))
    (block $done (loop $init
      (br_if $done (i32.ge_u (local.get $j) (local.get $n)))
      (f64.store (i32.add (local.get $acc) (i32.shl (local.get $j) (i32.const 3)))
        (f64.promote_f32 (f32.load (i32.add (local.get $b) (i32.shl (local.get $j) (i32.const 2))))))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $init)))
    (local.set $i (i32.const 0))
    (block $done8 (loop $rows8
      (br_if $done8 (i32.ge_s (i32.add (local.get $i) (i32.const 7)) (local.get $in)))
      (local.set $p (i32.add (local.get $x) (i32.shl (local.get $i) (i32.const 2))))
      (local.set $x0 (f64.promote_f32 (f32.load offset=0 (local.get $p))))
      (local.set $x1 (f64.promote_f32 (f32.load offset=4 (local.get $p))))
      (local.set $x2 (f64.promote_f32 (f32.load offset=8 (local.get $p))))
      (local.set $x3 (f64.promote_f32 (f32.load offset=12 (local.get $p))))
      (local.set $x4 (f64.promote_f32 (f32.load offset=16 (local.get $p))))
      (local.set $x5 (f64.promote_f32 (f32.load offset=20 (local.get $p))))
      (local.set $x6 (f64.promote_f32 (f32.load offset=24 (local.get $p))))
      (local.set $x7 (f64.promote_f32 (f32.load offset=28 (local.get $p))))
      ;; row = w + i * stride: address of W[i][0]
      (local.set $row (i32.add (local.get $w) (i32.mul (local.get $i) (local.get $stride))))
      (local.set $j (i32.const 0))
      (block $donej (loop $cols
        (br_if $donej (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $a (i32.add (local.get $acc) (i32.shl (local.get $j) (i32.const 3))))
        (local.set $p (i32.add (local.get $row) (i32.shl (local.get $j) (i32.const 2))))
        (f64.store (local.get $a)
          (f64.add (f64.load (local.get $a))
            (f64.add
              (f64.add
                (f64.add
                  (f64.add
                    (f64.add
                      (f64.add
                        (f64.add
                          (f64.mul (local.get $x0) (f64.promote_f32 (f32.load (local.get $p))))
                          (f64.mul (local.get $x1) (f64.promote_f32 (f32.load (i32.add (local.get $p) (local.get $stride))))))
                        (f64.mul (local.get $x2) (f64.promote_f32 (f32.load (i32.add (local.get $p) (i32.mul (local.get $stride) (i32.const 2)))))))
                      (f64.mul (local.get $x3) (f64.promote_f32 (f32.load (i32.add (local.get $p) (i32.mul (local.get $stride) (i32.const 3)))))))
                    (f64.mul (local.get $x4) (f64.promote_f32 (f32.load (i32.add (local.get $p) (i32.mul (local.get $stride) (i32.const 4)))))))
                  (f64.mul (local.get $x5) (f64.promote_f32 (f32.load (i32.add (local.get $p) (i32.mul (local.get $stride) (i32.const 5)))))))
                (f64.mul (local.get $x6) (f64.promote_f32 (f32.load (i32.add (local.get $p) (i32.mul (local.get $stride) (i32.const 6)))))))
              (f64.mul (local.get $x7) (f64.promote_f32 (f32.load (i32.add (local.get $p) (i32.mul (local.get $stride) (i32.const 7)))))))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $cols)))
      (local.set $i (i32.add (local.get $i) (i32.const 8)))
      (br $rows8)))
    ;; the remaining input rows one at a time
    (block $done1 (loop $rows1
      (br_if $done1 (i32.ge_s (local.get $i) (local.get $in)))
      (local.set $x0 (f64.promote_f32 (f32.load (i32.add (local.get $x) (i32.shl (local.get $i) (i32.const 2))))))
      (local.set $row (i32.add (local.get $w) (i32.mul (local.get $i) (local.get $stride))))
      (local.set $j (i32.const 0))
      (block $donej1 (loop $cols1
        (br_if $donej1 (i32.ge_u (local.get $j) (local.get $n)))
        (local.set $a (i32.add (local.get $acc) (i32.shl (local.get $j) (i32.const 3))))
        (f64.store (local.get $a)
          (f64.add (f64.load (local.get $a))
            (f64.mul (local.get $x0) (f64.promote_f32 (f32.load (i32.add (local.get $row) (i32.shl (local.get $j) (i32.const 2))))))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $cols1)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $rows1)))
    ;; out[j] = f32(acc[j])
    (local.set $j (i32.const 0))
    (block $doneo (loop $outs
      (br_if $doneo (i32.ge_u (local.get $j) (local.get $n)))
      (f32.store (i32.add (local.get $out) (i32.shl (local.get $j) (i32.const 2)))
        (f32.demote_f64 (f64.load (i32.add (local.get $acc) (i32.shl (local.get $j) (i32.const 3))))))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br $outs)))))
