;;; flyspell.el --- the Emacs client test: flyspell-buffer with typofix-ispell as the ispell program.
;; Run: emacs --batch -Q -l tests/clients/flyspell.el   (typofix-ispell on PATH, or TYPOFIX_ISPELL set)
;; Prints, for each test sentence, "FLAGGED: word word ..." (the words flyspell marked, in buffer order), then
;; "SUGGESTIONS recieved: s1 s2 ..." (what ispell.el parsed from the program's answer for that word) and
;; "CASECHARS: ..." (the word characters ispell.el took from the program: [[:alpha:]] when it knows the pipe
;; speaks UTF-8, [A-Za-z] for a plain Ispell).
(require 'ispell)
(require 'flyspell)
(setq ispell-program-name (or (getenv "TYPOFIX_ISPELL") "typofix-ispell")
      ispell-dictionary nil
      ispell-personal-dictionary nil)

(defun typofix-flagged (text)
  "The words flyspell marks in TEXT, in order, joined by spaces."
  (with-temp-buffer
    (insert text "\n")
    (text-mode)
    (flyspell-mode 1)
    (flyspell-buffer)
    (let (flagged)
      (dolist (ov (overlays-in (point-min) (point-max)))
        (when (flyspell-overlay-p ov)
          (push (cons (overlay-start ov)
                      (buffer-substring-no-properties (overlay-start ov) (overlay-end ov)))
                flagged)))
      (setq flagged (sort flagged (lambda (a b) (< (car a) (car b)))))
      (mapconcat #'cdr flagged " "))))

(princ (format "FLAGGED: %s\n"
               (typofix-flagged "We recieved teh letter on Tuesday and it was definately good.")))
(princ (format "FLAGGED: %s\n"
               (typofix-flagged "The café was naïve, the résumé was recieved on Monday.")))
(princ (format "CASECHARS: %s\n" (ispell-get-casechars)))
;; What M-$ (ispell-word) offers: the same exchange ispell.el makes for it.
(with-temp-buffer
  (ispell-init-process)
  (setq ispell-filter nil)
  (ispell-send-string "%\n")
  (ispell-send-string "^recieved\n")
  (while (progn (ispell-accept-output) (not (string= "" (car ispell-filter)))))
  (setq ispell-filter (cdr ispell-filter))
  (let ((poss (ispell-parse-output (car ispell-filter))))
    (princ (format "SUGGESTIONS recieved: %s\n" (mapconcat #'identity (nth 2 poss) " "))))
  (ispell-kill-ispell t))
