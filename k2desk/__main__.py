from k2desk.cli import main

raise SystemExit(main())
